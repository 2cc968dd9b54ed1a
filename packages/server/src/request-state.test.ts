import { describe, expect, it } from 'vitest';
import { RequestStateSeal } from './request-state.js';

describe('RequestStateSeal', () => {
  const seal = new RequestStateSeal({ secret: 'k' });

  it('round-trips a value for the same method and name', () => {
    const token = seal.seal({ step: 2, name: 'Ada' }, 'tools/call', 'greet');
    expect(seal.open(token, 'tools/call', 'greet')).toEqual({ step: 2, name: 'Ada' });
  });

  it('refuses a state with one character changed', () => {
    const token = seal.seal({ admin: false }, 'tools/call', 'greet');
    const body = token.slice(0, token.indexOf('.'));
    const forged = Buffer.from(
      Buffer.from(body, 'base64url').toString('utf8').replace('false', 'true '),
    ).toString('base64url');
    expect(() =>
      seal.open(`${forged}${token.slice(token.indexOf('.'))}`, 'tools/call', 'greet'),
    ).toThrow(/integrity check/);
    expect(() => seal.open('garbage', 'tools/call', 'greet')).toThrow(/integrity check/);
    expect(() => seal.open(42, 'tools/call', 'greet')).toThrow(/not a state this server issued/);
  });

  it('refuses a state replayed on another request, or from another key', () => {
    const token = seal.seal(1, 'tools/call', 'greet');
    expect(() => seal.open(token, 'prompts/get', 'greet')).toThrow(/issued for another request/);
    expect(() => seal.open(token, 'tools/call', 'other')).toThrow(/issued for another request/);
    expect(() =>
      new RequestStateSeal({ secret: 'other' }).open(token, 'tools/call', 'greet'),
    ).toThrow(/integrity check/);
  });

  it('refuses an expired state', () => {
    let now = 1_000;
    const clocked = new RequestStateSeal({ secret: 'k', ttlMs: 100, now: () => now });
    const token = clocked.seal('x', 'tools/call', 't');
    now = 1_101;
    expect(() => clocked.open(token, 'tools/call', 't')).toThrow(/expired/);
  });
});

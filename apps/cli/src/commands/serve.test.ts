import { describe, expect, it } from 'vitest';
import { parseBind } from './serve.js';

describe('parseBind', () => {
  it('defaults to loopback and takes host:port or [v6]:port', () => {
    expect(parseBind('8765')).toEqual({ host: '127.0.0.1', port: 8765 });
    expect(parseBind('0.0.0.0:80')).toEqual({ host: '0.0.0.0', port: 80 });
    expect(parseBind('[::1]:9000')).toEqual({ host: '[::1]', port: 9000 });
    expect(() => parseBind('70000')).toThrow(/--http takes/);
    expect(() => parseBind('host:')).toThrow(/--http takes/);
  });
});

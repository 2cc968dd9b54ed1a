import { McpkitError, TimeoutError } from '@mcpkit/jsonrpc';
import { describe, expect, it } from 'vitest';
import {
  AuthError,
  AuthResponseTooLargeError,
  HeadersHelperError,
  NeedsAuthError,
  UnsafeEndpointError,
} from './errors.js';

describe('auth error classes', () => {
  const make = {
    NeedsAuthError: () => new NeedsAuthError('m', 's'),
    AuthError: () => new AuthError('m'),
    UnsafeEndpointError: () => new UnsafeEndpointError('m', 'f', 'v'),
    AuthResponseTooLargeError: () => new AuthResponseTooLargeError('m', 1, 'u'),
    HeadersHelperError: () => new HeadersHelperError('m'),
    TimeoutError: () => new TimeoutError('m', 1),
  };
  const classes = {
    NeedsAuthError,
    AuthError,
    UnsafeEndpointError,
    AuthResponseTooLargeError,
    HeadersHelperError,
  };

  it('isInstance holds for the class and its subclasses only, never for a sibling', () => {
    for (const [aName, A] of Object.entries(classes))
      for (const [bName, makeB] of Object.entries(make)) {
        const b = makeB();
        expect(A.isInstance(b), `${aName}.isInstance(new ${bName})`).toBe(b instanceof A);
      }
  });

  it('each has its own code, and all are mcpkit errors', () => {
    const codes = Object.values(make).map((m) => m().code);
    expect(new Set(codes).size).toBe(codes.length);
    for (const m of Object.values(make)) expect(McpkitError.isInstance(m())).toBe(true);
  });
});

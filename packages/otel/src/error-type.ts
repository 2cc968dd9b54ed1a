/**
 * `error.type` of a failed request: the JSON-RPC error code the peer answered with, else
 * our error's `MCPKIT_*` code (a timeout, a closed connection), else `_OTHER`.
 */
export function errorTypeOf(error: unknown): { type: string; rpcCode?: string; message?: string } {
  const e = error as { rpcCode?: unknown; code?: unknown; message?: unknown } | undefined;
  const message = typeof e?.message === 'string' ? e.message : undefined;
  const withMessage = message !== undefined ? { message } : {};
  if (typeof e?.rpcCode === 'number') {
    const rpcCode = String(e.rpcCode);
    return { type: rpcCode, rpcCode, ...withMessage };
  }
  if (typeof e?.code === 'number') {
    // A wire error shaped by another library (`code` is the JSON-RPC code).
    const rpcCode = String(e.code);
    return { type: rpcCode, rpcCode, ...withMessage };
  }
  if (typeof e?.code === 'string' && e.code.length > 0 && e.code.length <= 64)
    return { type: e.code, ...withMessage };
  return { type: '_OTHER', ...withMessage };
}

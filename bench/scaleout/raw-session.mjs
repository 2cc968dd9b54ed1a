// Raw 2025-11-25 Streamable HTTP requests for the scale-out benches (run.mjs, load.mjs).

/** A request's headers: JSON in, JSON or SSE out, the revision, the session once there is one. */
export const sessionHeaders = (sessionId, extra = {}) => ({
  ...extra,
  'content-type': 'application/json',
  accept: 'application/json, text/event-stream',
  'mcp-protocol-version': '2025-11-25',
  ...(sessionId ? { 'mcp-session-id': sessionId } : {}),
});

/** Opens a session (initialize, then initialized); resolves with its id. */
export async function openSession(url, extra = {}) {
  const res = await fetch(url, {
    method: 'POST',
    headers: sessionHeaders(undefined, extra),
    body: JSON.stringify({
      jsonrpc: '2.0',
      id: 0,
      method: 'initialize',
      params: {
        protocolVersion: '2025-11-25',
        capabilities: {},
        clientInfo: { name: 'bench', version: '1' },
      },
    }),
  });
  await res.text();
  const sessionId = res.headers.get('mcp-session-id');
  if (!sessionId) throw new Error(`initialize: HTTP ${res.status}`);
  await fetch(url, {
    method: 'POST',
    headers: sessionHeaders(sessionId, extra),
    body: JSON.stringify({ jsonrpc: '2.0', method: 'notifications/initialized' }),
  }).then((r) => r.text());
  return sessionId;
}

// The server side of the transport contract, written once in plain JavaScript so that
// the stdio child process and the in-test servers share it.
// `log.cancelled` collects ids of requests the client cancelled; `log.notes` the
// notifications the client sent; `die()` makes the server vanish mid-request.

/** @param {import('@mcpkit/jsonrpc').JsonRpcPeer} peer */
export function contractServer(peer, log, die) {
  peer.setRequestHandler('echo', (params) => params);
  peer.setRequestHandler(
    'hang',
    (_params, ctx) =>
      new Promise((_resolve, reject) => {
        ctx.signal.addEventListener('abort', () => {
          log.cancelled.push(ctx.id);
          log.changed?.();
          reject(ctx.signal.reason);
        });
      }),
  );
  peer.setRequestHandler('ask-client', async (params, ctx) => ({
    clientSaid: await ctx.request('client/answer', { question: params.question }),
  }));
  peer.setRequestHandler('notify-me', async (params, ctx) => {
    await ctx.notify('server/note', { n: params.n });
    return { sent: true };
  });
  peer.setRequestHandler('die-now', () => {
    die();
    return new Promise(() => {});
  });
  peer.setNotificationHandler('client/note', (params) => {
    log.notes.push(params);
    log.changed?.();
  });
}

import { randomUUID } from 'node:crypto';
import type { McpManager, ServerState } from '@mcpkit/manager';
import type { HandlerContext } from '@mcpkit/server';

/**
 * Runs a backend's `authenticate` tool. The sign-in's URL goes to the client that called it:
 * as a URL elicitation when it declared that mode, else in the tool's result (the sign-in
 * then waits in the background for the redirect). Only the stdio face's own client —
 * the user's host on this machine — without URL elicitation gets a local browser opened.
 */
export async function runAuthenticateTool(
  manager: McpManager,
  server: string,
  ctx: HandlerContext,
  options: { soleClient: boolean; warn: (text: string) => void },
) {
  const text = (t: string, isError = false) => ({
    content: [{ type: 'text' as const, text: t }],
    isError,
  });
  const finish = (state: ServerState) =>
    state.state === 'connected'
      ? text(`Signed in to "${server}".`)
      : text(`"${server}" is ${state.state} after the sign-in.`, true);
  const urlMode =
    ctx.era !== 'modern' &&
    (ctx.clientCapabilities.elicitation as Record<string, unknown> | undefined)?.url !== undefined;
  if (urlMode) {
    const stop = new AbortController();
    const signal = AbortSignal.any([ctx.signal, stop.signal]);
    const open = async (url: string) => {
      const answer = await ctx.request('elicitation/create', {
        mode: 'url',
        message: `Sign in to "${server}"`,
        url,
        elicitationId: randomUUID(),
      });
      if (answer.action !== 'accept')
        stop.abort(
          new Error(`the sign-in to "${server}" was not accepted (${String(answer.action)})`),
        );
    };
    try {
      return finish(await manager.authenticate(server, { signal, open }));
    } catch (error) {
      return text(
        `The sign-in to "${server}" did not finish: ${(signal.reason as Error | undefined)?.message ?? (error as Error).message}`,
        true,
      );
    }
  }
  if (options.soleClient) return finish(await manager.authenticate(server));
  // Another machine's client, perhaps: never a browser here; the URL is the answer.
  let given!: (url: string) => void;
  const url = new Promise<string>((resolve) => {
    given = resolve;
  });
  const signedIn = manager.authenticate(server, { open: (u) => given(u) });
  signedIn.catch((error: Error) =>
    options.warn(`server "${server}": the sign-in did not finish: ${error.message}`),
  );
  return Promise.race([
    signedIn.then(finish),
    url.then((u) =>
      text(`To sign in to "${server}", open this URL: ${u}\nIts tools appear once signed in.`),
    ),
  ]);
}

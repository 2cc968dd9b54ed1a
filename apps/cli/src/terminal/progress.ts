import type { ResolvedServer } from '@mcpkit/config';
import type { McpManager, ServerState } from '@mcpkit/manager';
import { stderrBlock, summarize } from '../core/advice.js';
import { notStartedHint } from '../core/server-selection.js';
import { neutralize } from './neutralize.js';

/** Live progress while connecting: watches a manager, returns the function that stops. */
export interface Progress {
  watch(
    manager: McpManager,
    notStarted: readonly ResolvedServer[],
    signal: AbortSignal,
  ): () => void;
}

export interface TerminalProgressOptions {
  /** The terminal progress is drawn on (stderr: stdout stays the command's output). */
  stream: NodeJS.WriteStream;
  /** Colours, unless `NO_COLOR` is set. */
  color: boolean;
  /** Scrubs secrets from a line before it is shown. */
  clean: (text: string) => string;
}

type Colors = typeof import('picocolors');

/**
 * One line per server, redrawn in place (log-update) as each turns from starting to its
 * settled state; the last frame stays on screen when the connect is over.
 */
export async function terminalProgress(options: TerminalProgressOptions): Promise<Progress> {
  const [{ createLogUpdate }, picocolors] = await Promise.all([
    import('log-update'),
    import('picocolors'),
  ]);
  const pc: Colors = picocolors.default.createColors(options.color) as Colors;
  return {
    watch(manager, notStarted, signal) {
      const render = createLogUpdate(options.stream, { showCursor: true });
      const tools = new Map<string, number>();
      const started = Date.now();
      const line = (state: ServerState): string => {
        const name = pc.bold(neutralize(state.name));
        switch (state.state) {
          case 'connected': {
            const count = tools.get(state.name);
            return `${pc.green('✔')} ${name}  connected${count === undefined ? '' : ` · ${count} ${count === 1 ? 'tool' : 'tools'}`} · ${state.connectMs} ms`;
          }
          case 'pending':
            return state.reconnectAttempt > 0
              ? `${pc.yellow('↻')} ${name}  reconnecting ${state.reconnectAttempt}/${state.maxReconnectAttempts}`
              : `${pc.cyan('…')} ${name}  connecting (${Math.round((Date.now() - started) / 1000)} s)`;
          case 'needs-auth':
            return `${pc.yellow('!')} ${name}  needs-auth: run "mcpkit login ${neutralize(state.name)}"`;
          case 'failed': {
            const s = summarize(state);
            const reason = neutralize(options.clean(s.reason.replace(/\s*\n\s*/g, ' ')));
            const under = stderrBlock((s.stderr ?? []).map((l) => neutralize(options.clean(l))));
            return [`${pc.red('✖')} ${name}  failed: ${reason}`, ...under].join('\n');
          }
          case 'disabled':
            return `${pc.dim('–')} ${name}  disabled`;
        }
      };
      const skipped = notStarted.map((s) => {
        const label = s.status === 'pending-approval' ? 'pending approval' : s.status;
        return `${pc.dim('–')} ${pc.bold(neutralize(s.name))}  ${label}: ${neutralize(options.clean(notStartedHint(s)))}`;
      });
      const draw = () => {
        const lines = [...manager.snapshot().servers.map(line), ...skipped];
        render(lines.join('\n'));
      };
      const offState = manager.on('statechange', draw);
      const offTools = manager.on('toolschange', (diff) => {
        tools.set(
          diff.server,
          (tools.get(diff.server) ?? 0) + diff.added.length - diff.removed.length,
        );
        draw();
      });
      // Seconds tick for servers that are still starting (a hanging one shows it is alive).
      const timer = setInterval(draw, 1000);
      timer.unref();
      let stopped = false;
      const stop = (final: boolean) => {
        if (stopped) return;
        stopped = true;
        clearInterval(timer);
        offState();
        offTools();
        signal.removeEventListener('abort', onAbort);
        // After a signal the frame is left as it is: a redraw would erase the lines the
        // shutdown printed under it ("SIGINT: closing 3 connections").
        if (final) draw();
        render.done();
      };
      const onAbort = () => stop(false);
      signal.addEventListener('abort', onAbort, { once: true });
      draw();
      return () => stop(!signal.aborted);
    },
  };
}

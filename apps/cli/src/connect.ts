import { McpClient } from '@mcpkit/client';
import type { ResolvedServer } from '@mcpkit/config';
import { StdioTransport } from '@mcpkit/transport-stdio';
import { type CliContext, workingDirectory } from './servers.js';

export interface Connected {
  name: string;
  client: McpClient;
}

export interface ConnectFailure {
  name: string;
  error: Error;
}

export interface ConnectOptions {
  timeoutMs: number;
  /** Server stderr goes here (prefixed with the server's name) when set. */
  stderr?: (name: string, text: string) => void;
}

/** Connects to enabled servers at once; one server failing never stops the others. */
export async function connectServers(
  servers: readonly ResolvedServer[],
  ctx: CliContext,
  options: ConnectOptions,
): Promise<{ connected: Connected[]; failed: ConnectFailure[] }> {
  const results = await Promise.all(
    servers.map(async (server): Promise<Connected | ConnectFailure> => {
      const { name, config } = server;
      if (config.type !== 'stdio') {
        return {
          name,
          error: new Error(
            `server "${name}": type "${config.type}" is not supported by this version of the CLI yet (stdio only)`,
          ),
        };
      }
      const client = new McpClient({
        name,
        clientInfo: { name: 'mcpkit-cli', version: '0.1.0' },
        requestTimeoutMs: config.timeout ?? options.timeoutMs,
      });
      const transport = new StdioTransport({
        command: config.command,
        args: config.args ?? [],
        env: config.env ?? {},
        cwd: workingDirectory(server, ctx),
        name,
        sourceEnv: ctx.env as NodeJS.ProcessEnv,
        ...(options.stderr ? { onstderr: (text: string) => options.stderr!(name, text) } : {}),
      });
      try {
        await client.connect(transport, { timeoutMs: options.timeoutMs });
        return { name, client };
      } catch (error) {
        await transport.close().catch(() => {});
        return { name, error: error as Error };
      }
    }),
  );
  return {
    connected: results.filter((r): r is Connected => 'client' in r),
    failed: results.filter((r): r is ConnectFailure => 'error' in r),
  };
}

import { McpClient } from '@mcpkit/client';
import { StdioTransport } from '@mcpkit/transport-stdio';
import type { ConfigFile } from './config-file.js';

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

/** Connects to the named servers at once; one server failing never stops the others. */
export async function connectServers(
  config: ConfigFile,
  names: readonly string[],
  options: ConnectOptions,
): Promise<{ connected: Connected[]; failed: ConnectFailure[] }> {
  const results = await Promise.all(
    names.map(async (name): Promise<Connected | ConnectFailure> => {
      const entry = config.servers.get(name);
      if (!entry) return { name, error: new Error(`server "${name}" is not in ${config.path}`) };
      if (entry.type !== 'stdio' || !('command' in entry)) {
        return {
          name,
          error: new Error(
            `server "${name}": type "${entry.type}" is not supported by this version of the CLI yet (stdio only)`,
          ),
        };
      }
      const client = new McpClient({
        name,
        clientInfo: { name: 'mcpkit-cli', version: '0.1.0' },
        requestTimeoutMs: options.timeoutMs,
      });
      const transport = new StdioTransport({
        command: entry.command,
        args: entry.args,
        env: entry.env,
        cwd: config.directory,
        name,
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

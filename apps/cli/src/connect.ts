import { McpClient } from '@mcpkit/client';
import type { ResolvedServer } from '@mcpkit/config';
import type { Transport } from '@mcpkit/jsonrpc';
import { SseTransport } from '@mcpkit/transport-sse';
import { StdioTransport } from '@mcpkit/transport-stdio';
import { StreamableHttpTransport } from '@mcpkit/transport-streamable-http';
import { WebSocketTransport } from '@mcpkit/transport-websocket';
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
      let transport: Transport;
      try {
        transport = transportFor(server, ctx, options);
      } catch (error) {
        return { name, error: error as Error };
      }
      const client = new McpClient({
        name,
        clientInfo: { name: 'mcpkit-cli', version: '0.1.0' },
        requestTimeoutMs: config.timeout ?? options.timeoutMs,
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

/** The transport a resolved server entry asks for. */
function transportFor(server: ResolvedServer, ctx: CliContext, options: ConnectOptions): Transport {
  const { name, config } = server;
  if ('headersHelper' in config && config.headersHelper) {
    throw new Error(
      `server "${name}": "headersHelper" is not supported by this version of the CLI yet`,
    );
  }
  if ('oauth' in config && config.oauth) {
    throw new Error(`server "${name}": OAuth is not supported by this version of the CLI yet`);
  }
  switch (config.type) {
    case 'stdio':
      return new StdioTransport({
        command: config.command,
        args: config.args ?? [],
        env: config.env ?? {},
        cwd: workingDirectory(server, ctx),
        name,
        sourceEnv: ctx.env as NodeJS.ProcessEnv,
        ...(options.stderr ? { onstderr: (text: string) => options.stderr!(name, text) } : {}),
      });
    case 'http':
    case 'streamable-http':
      return new StreamableHttpTransport({
        url: config.url,
        name,
        ...(config.headers ? { headers: config.headers } : {}),
      });
    case 'sse':
      return new SseTransport({
        url: config.url,
        name,
        ...(config.headers ? { headers: config.headers } : {}),
      });
    case 'ws':
      return new WebSocketTransport({
        url: config.url,
        name,
        ...(config.headers ? { headers: config.headers } : {}),
      });
    default:
      throw new Error(
        `server "${name}": type "${config.type}" is not supported by this version of the CLI yet`,
      );
  }
}

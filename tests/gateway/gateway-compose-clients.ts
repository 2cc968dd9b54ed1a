import {
  Client as ClientV2,
  StreamableHTTPClientTransport as HttpV2,
} from '@modelcontextprotocol/client';
import { StdioClientTransport as StdioV2 } from '@modelcontextprotocol/client/stdio';
import { Client as ClientV1 } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport as StdioV1 } from '@modelcontextprotocol/sdk/client/stdio.js';
import { StreamableHTTPClientTransport as HttpV1 } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { ToolListChangedNotificationSchema } from '@modelcontextprotocol/sdk/types.js';

/** What the compose tests do with a client, the same for SDK v1 and v2. */
export interface SdkClient {
  listTools(): Promise<Array<{ name: string; description?: string; inputSchema: unknown }>>;
  callTool(
    name: string,
    args: Record<string, unknown>,
  ): Promise<{ text: string; isError: boolean }>;
  /** Resolves at the next `notifications/tools/list_changed`. */
  nextToolsChanged(): Promise<void>;
  close(): Promise<void>;
}

export type SdkKind = 'v1' | 'v2-legacy' | 'v2-auto';

function wrap(client: ClientV1 | ClientV2, onChanged: (handler: () => void) => void): SdkClient {
  let waiters: Array<() => void> = [];
  onChanged(() => {
    const ready = waiters;
    waiters = [];
    for (const w of ready) w();
  });
  return {
    listTools: async () => (await client.listTools()).tools as never,
    callTool: async (name, args) => {
      const result = (await client.callTool({ name, arguments: args })) as {
        content: Array<{ text?: string }>;
        isError?: boolean;
      };
      return {
        text: result.content.map((c) => c.text ?? '').join(''),
        isError: result.isError === true,
      };
    },
    nextToolsChanged: () => new Promise<void>((resolve) => waiters.push(resolve)),
    close: () => client.close(),
  };
}

function v2(kind: SdkKind): ClientV2 {
  return new ClientV2(
    { name: 'sdk-v2', version: '2.0.0' },
    { versionNegotiation: { mode: kind === 'v2-auto' ? 'auto' : 'legacy' } },
  );
}

/** An SDK client of an HTTP endpoint (with the bearer token). */
export async function httpClient(kind: SdkKind, url: URL, token: string): Promise<SdkClient> {
  const requestInit = { headers: { Authorization: `Bearer ${token}` } };
  if (kind === 'v1') {
    const client = new ClientV1({ name: 'sdk-v1', version: '1.0.0' });
    await client.connect(new HttpV1(url, { requestInit }));
    return wrap(client, (h) => client.setNotificationHandler(ToolListChangedNotificationSchema, h));
  }
  const client = v2(kind);
  await client.connect(new HttpV2(url, { requestInit }));
  return wrap(client, (h) => client.setNotificationHandler('notifications/tools/list_changed', h));
}

/** An SDK client that starts `mcpkit serve` over stdio itself. */
export async function stdioClient(
  kind: SdkKind,
  args: string[],
  env: NodeJS.ProcessEnv,
): Promise<SdkClient> {
  const params = {
    command: process.execPath,
    args,
    env: env as Record<string, string>,
    stderr: 'pipe' as const,
  };
  if (kind === 'v1') {
    const client = new ClientV1({ name: 'sdk-v1', version: '1.0.0' });
    await client.connect(new StdioV1(params));
    return wrap(client, (h) => client.setNotificationHandler(ToolListChangedNotificationSchema, h));
  }
  const client = v2(kind);
  await client.connect(new StdioV2(params));
  return wrap(client, (h) => client.setNotificationHandler('notifications/tools/list_changed', h));
}

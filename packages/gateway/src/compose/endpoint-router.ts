import type { IncomingMessage, ServerResponse } from 'node:http';
import {
  createStreamableHttpHandler,
  type McpServer,
  type StreamableHttpHandler,
  type StreamableHttpOptions,
} from '@mcpkit/server';

/** Where the HTTP listener finds a named endpoint's gateway (`GatewayEndpoints` is one). */
export interface EndpointSource {
  get(name: string): { readonly server: McpServer } | undefined;
}

/**
 * `/mcp/<name>`: each named endpoint's gateway on a Streamable HTTP handler of its own
 * (sessions never cross endpoints), made on its first request. A handler whose endpoint is
 * gone (a reloaded config) is closed.
 */
export class EndpointRouter {
  private readonly handlers = new Map<
    string,
    { server: McpServer; handler: StreamableHttpHandler }
  >();

  constructor(
    private readonly endpoints: EndpointSource,
    private readonly options: StreamableHttpOptions,
  ) {}

  /** Serves a request for the endpoint `name`; false when there is no such endpoint. */
  handle(name: string, req: IncomingMessage, res: ServerResponse): boolean {
    const server = this.endpoints.get(name)?.server;
    let entry = this.handlers.get(name);
    if (!server || entry?.server !== server) {
      this.prune();
      if (!server) return false;
      entry = { server, handler: createStreamableHttpHandler(server, this.options) };
      this.handlers.set(name, entry);
    }
    void entry.handler(req, res);
    return true;
  }

  async close(): Promise<void> {
    await Promise.all([...this.handlers.values()].map((e) => e.handler.close()));
    this.handlers.clear();
  }

  /** Closes the handlers of endpoints no longer served (or served by a new gateway). */
  private prune(): void {
    for (const [name, entry] of this.handlers)
      if (this.endpoints.get(name)?.server !== entry.server) {
        this.handlers.delete(name);
        void entry.handler.close();
      }
  }
}

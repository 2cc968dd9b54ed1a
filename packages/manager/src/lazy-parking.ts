import type { Tool } from '@mcpkit/protocol';
import type { Catalog } from './catalog.js';
import type { ServerConnection } from './connection.js';
import type { Emitter } from './emitter.js';
import { type LazyStartOptions, readToolCache, writeToolCache } from './lazy-start.js';
import type { ManagerEvents } from './state.js';

/**
 * Lazy start on the manager's side: servers with a cached tool list are listed by it and
 * parked (started by their first call); every fresh tool list is written back.
 */
export class LazyParking {
  constructor(
    private readonly deps: {
      options: LazyStartOptions | false | undefined;
      catalog: Catalog;
      events: Emitter<ManagerEvents>;
      connection(name: string): ServerConnection | undefined;
      track(task: Promise<unknown>): void;
    },
  ) {}

  /** Parks the servers with a warm cache; returns the ones to start now. */
  async park(connections: ServerConnection[]): Promise<ServerConnection[]> {
    const lazy = this.deps.options;
    if (!lazy) return connections;
    const cold: ServerConnection[] = [];
    await Promise.all(
      connections.map(async (c) => {
        const tools = await readToolCache(lazy, c.server);
        if (!tools) return cold.push(c);
        this.deps.catalog.setWarm(c.name, tools);
        c.park('lazy start: starts on its first call');
      }),
    );
    return cold;
  }

  /** Keeps a server's fresh tool list on disk (a failure is a warning, not an error). */
  remember(server: string, tools: Tool[]): void {
    const lazy = this.deps.options;
    const c = this.deps.connection(server);
    if (!lazy || !c) return;
    this.deps.track(
      writeToolCache(lazy, c.server, tools).catch((error: Error) =>
        this.deps.events.emit('warning', {
          server,
          error: new Error(
            `server "${server}": could not keep its tool list in ${lazy.cacheDir}: ${error.message}`,
            { cause: error },
          ),
        }),
      ),
    );
  }
}

import { type FSWatcher, watch } from 'node:fs';
import { open } from 'node:fs/promises';
import { basename, dirname } from 'node:path';
import { type GatewayConfig, GatewayConfigError, parseGatewayConfig } from './config.js';

/** The largest gateway config read: a config is written by a person, never this big. */
export const MAX_GATEWAY_CONFIG_BYTES = 1024 * 1024;

/** Reads at most `limit` bytes of a file; more is an error (the file is not read whole). */
async function readBounded(file: string, limit: number): Promise<string> {
  const handle = await open(file, 'r');
  try {
    const buffer = Buffer.alloc(limit + 1);
    let length = 0;
    while (length <= limit) {
      const { bytesRead } = await handle.read(buffer, length, limit + 1 - length, null);
      if (bytesRead === 0) break;
      length += bytesRead;
    }
    if (length > limit)
      throw new GatewayConfigError(file, [
        { path: '', line: 1, column: 1, message: `the file is over ${limit} bytes` },
      ]);
    return buffer.subarray(0, length).toString('utf8');
  } finally {
    await handle.close();
  }
}

export interface LoadGatewayConfigOptions {
  /** The MCP config's server names (a config naming another server is an error). */
  servers?: readonly string[];
}

/**
 * Reads and checks a gateway config file (`GatewayConfigError` with line and column): the
 * config and the text it was read from (for `watchGatewayConfig`).
 */
export async function loadGatewayConfig(
  file: string,
  options: LoadGatewayConfigOptions = {},
): Promise<{ config: GatewayConfig; text: string }> {
  const text = await readBounded(file, MAX_GATEWAY_CONFIG_BYTES);
  return { config: parseGatewayConfig(text, { file, ...options }), text };
}

export interface WatchGatewayConfigOptions extends LoadGatewayConfigOptions {
  /** A new config that parsed and checked. */
  onconfig: (config: GatewayConfig) => void | Promise<void>;
  /** A change that could not be used (the last good config stays in force). */
  onerror: (error: Error) => void;
  /** Quiet time after a change before the file is read (editors write in steps). 100 ms. */
  debounceMs?: number;
}

export interface GatewayConfigWatcher {
  close(): void;
}

/**
 * Follows a gateway config file: its folder is watched (an editor that replaces the file
 * keeps being followed), and after each burst of changes the file is read again. A config
 * that parses and checks goes to `onconfig`; one that does not, or a file gone, goes to
 * `onerror`, and the last good config stays in force. The same text twice is one config.
 */
export function watchGatewayConfig(
  file: string,
  options: WatchGatewayConfigOptions,
  /** The text in force now (the first load's), so that an unchanged save is no reload. */
  current?: string,
): GatewayConfigWatcher {
  const name = basename(file);
  let last = current;
  let timer: NodeJS.Timeout | undefined;
  let closed = false;
  let running: Promise<void> = Promise.resolve();
  const reload = async () => {
    try {
      const text = await readBounded(file, MAX_GATEWAY_CONFIG_BYTES);
      if (closed || text === last) return;
      const config = parseGatewayConfig(text, {
        file,
        ...(options.servers ? { servers: options.servers } : {}),
      });
      last = text;
      await options.onconfig(config);
    } catch (error) {
      // The last good text, saved again after a bad one, is applied again: a host that
      // failed closed on the bad one (an access policy) is back in service.
      last = undefined;
      if (!closed) options.onerror(error as Error);
    }
  };
  const watcher: FSWatcher = watch(dirname(file), { persistent: false }, (_event, changed) => {
    if (closed || (changed !== null && changed !== name)) return;
    clearTimeout(timer);
    timer = setTimeout(() => {
      // One reload at a time, in order.
      running = running.then(reload);
    }, options.debounceMs ?? 100);
  });
  watcher.on('error', (error) => {
    if (!closed) options.onerror(error);
  });
  return {
    close() {
      closed = true;
      clearTimeout(timer);
      watcher.close();
    },
  };
}

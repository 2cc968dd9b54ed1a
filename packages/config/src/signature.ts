import type { ServerConfig } from './schemas.js';

/**
 * A proxy URL that carries its target in a `url` or `target` query parameter stands for
 * that target: `https://proxy.example/mcp?url=https%3A%2F%2Fapi.example%2Fmcp` →
 * `https://api.example/mcp`.
 */
export function unwrapProxyUrl(url: string): string {
  try {
    const parsed = new URL(url);
    for (const key of ['url', 'target']) {
      const inner = parsed.searchParams.get(key);
      if (inner && /^https?:\/\//i.test(inner)) return unwrapProxyUrl(inner);
    }
  } catch {
    // Not a URL: compare as written.
  }
  return url;
}

function normalizeUrl(url: string): string {
  try {
    const parsed = new URL(url);
    parsed.hash = '';
    const text = parsed.toString();
    return text.endsWith('/') && parsed.pathname !== '/' ? text.slice(0, -1) : text;
  } catch {
    return url;
  }
}

/** The argv a stdio server runs, or undefined for other types. */
export function commandOf(config: ServerConfig): string[] | undefined {
  if (config.type === undefined || config.type === 'stdio') {
    const stdio = config as { command: string; args?: string[] };
    return [stdio.command, ...(stdio.args ?? [])];
  }
  return undefined;
}

/** The URL a remote server is reached at, or undefined for stdio and sdk servers. */
export function urlOf(config: ServerConfig): string | undefined {
  return 'url' in config && typeof config.url === 'string' ? config.url : undefined;
}

/**
 * What makes two entries "the same server": the argv for stdio, the (unwrapped,
 * normalized) URL for remote servers. In-process (`sdk`) servers have none.
 */
export function serverSignature(config: ServerConfig): string | undefined {
  const argv = commandOf(config);
  if (argv) return `stdio:${JSON.stringify(argv)}`;
  const url = urlOf(config);
  if (url) return `url:${normalizeUrl(unwrapProxyUrl(url))}`;
  return undefined;
}

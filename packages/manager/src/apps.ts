/**
 * MCP Apps (the `io.modelcontextprotocol/ui` extension, SEP-1865, 2026-01-26): what a tool's
 * `_meta.ui` and a `ui://` resource declare, parsed from server bytes (so untrusted): only
 * the shapes the extension defines are kept, everything else is dropped, never thrown on.
 */

/** The extension's identifier: the key under client capabilities `extensions`. */
export const UI_EXTENSION_ID = 'io.modelcontextprotocol/ui';
/** The one content type the extension defines for a view. */
export const MCP_APP_MIME_TYPE = 'text/html;profile=mcp-app';

export type UiVisibility = 'model' | 'app';

/** A view's declared CSP origins (each list as the server sent it, strings only). */
export interface UiCsp {
  connectDomains?: string[];
  resourceDomains?: string[];
  frameDomains?: string[];
  baseUriDomains?: string[];
}

/** Browser features a view asks for; a host may grant them (an iframe's `allow`). */
export interface UiPermissions {
  camera?: boolean;
  microphone?: boolean;
  geolocation?: boolean;
  clipboardWrite?: boolean;
}

/** A tool's `_meta.ui`, parsed. */
export interface HostToolUi {
  /** The `ui://` view that renders this tool's results. */
  resourceUri?: string;
  /** Who may call the tool; the extension's default `["model", "app"]` when not declared. */
  visibility: readonly UiVisibility[];
  csp?: UiCsp;
  permissions?: UiPermissions;
}

const isRecord = (v: unknown): v is Record<string, unknown> =>
  typeof v === 'object' && v !== null && !Array.isArray(v);

const MAX_DOMAINS = 64;
const MAX_DOMAIN_CHARS = 512;

function strings(v: unknown): string[] | undefined {
  if (!Array.isArray(v)) return undefined;
  const out: string[] = [];
  for (const item of v.slice(0, MAX_DOMAINS))
    if (typeof item === 'string' && item.length > 0 && item.length <= MAX_DOMAIN_CHARS)
      out.push(item);
  return out;
}

export function parseCsp(v: unknown): UiCsp | undefined {
  if (!isRecord(v)) return undefined;
  const out: UiCsp = {};
  for (const key of [
    'connectDomains',
    'resourceDomains',
    'frameDomains',
    'baseUriDomains',
  ] as const) {
    const list = strings(v[key]);
    if (list) out[key] = list;
  }
  return out;
}

export function parsePermissions(v: unknown): UiPermissions | undefined {
  if (!isRecord(v)) return undefined;
  const out: UiPermissions = {};
  for (const key of ['camera', 'microphone', 'geolocation', 'clipboardWrite'] as const)
    if (isRecord(v[key])) out[key] = true;
  return out;
}

const DEFAULT_VISIBILITY: readonly UiVisibility[] = Object.freeze(['model', 'app']);

/**
 * A tool's `_meta.ui` (and the deprecated flat `_meta["ui/resourceUri"]`), or undefined when
 * the tool declares neither. A `visibility` that is not a list of strings is the default;
 * unknown entries are dropped, so `["app", "x"]` is app-only.
 */
export function parseToolUi(meta: unknown): HostToolUi | undefined {
  if (!isRecord(meta)) return undefined;
  const ui = isRecord(meta.ui) ? meta.ui : undefined;
  const flat = meta['ui/resourceUri'];
  if (!ui && typeof flat !== 'string') return undefined;
  const out: { -readonly [K in keyof HostToolUi]: HostToolUi[K] } = {
    visibility: DEFAULT_VISIBILITY,
  };
  const uri = typeof ui?.resourceUri === 'string' ? ui.resourceUri : flat;
  if (typeof uri === 'string') out.resourceUri = uri;
  if (Array.isArray(ui?.visibility)) {
    const seen = ui.visibility.filter((x): x is UiVisibility => x === 'model' || x === 'app');
    out.visibility = Object.freeze([...new Set(seen)]);
  }
  const csp = parseCsp(ui?.csp);
  if (csp) out.csp = csp;
  const permissions = parsePermissions(ui?.permissions);
  if (permissions) out.permissions = permissions;
  return Object.freeze(out);
}

/** True when the model may see and call the tool (no `_meta.ui`, or its visibility has `model`). */
export function modelVisible(ui: HostToolUi | undefined): boolean {
  return !ui || ui.visibility.includes('model');
}

/** True when a view of the tool's own server may call it. */
export function appVisible(ui: HostToolUi | undefined): boolean {
  return !ui || ui.visibility.includes('app');
}

/** A `ui://` view as `readUiResource` gives it: the HTML and what it declared. */
export interface UiResource {
  server: string;
  uri: string;
  mimeType: string;
  html: string;
  csp?: UiCsp;
  permissions?: UiPermissions;
  /** A dedicated sandbox origin the view asks for (host-dependent format). */
  domain?: string;
  prefersBorder?: boolean;
  /** The content's `_meta` as the server sent it. */
  _meta?: Record<string, unknown>;
}

const CSP_TOKEN = /^[A-Za-z0-9*.:/_\-[\]]+$/;

/** One declared origin kept for a CSP header only when it is a plain source (no `;`, quote or space). */
function sources(list: string[] | undefined): string {
  return (list ?? []).filter((d) => CSP_TOKEN.test(d) && d !== '*').join(' ');
}

/**
 * The Content-Security-Policy for a view from what it declared, per the extension: nothing
 * outside the declared origins; without `csp`, the extension's restrictive default (with the
 * draft's `object-src 'none'`). With a `csp`, scripts and workers may also come from `blob:`
 * and `data:` URLs: those are not origins, so they reach no network the view did not
 * declare, and bundled views need them (server-pdf's viewer starts pdf.js's worker from a
 * `data:` URL; the official example host allows both).
 */
export function uiContentSecurityPolicy(csp: UiCsp | undefined): string {
  if (!csp)
    return "default-src 'none'; script-src 'self' 'unsafe-inline'; style-src 'self' 'unsafe-inline'; img-src 'self' data:; media-src 'self' data:; object-src 'none'; connect-src 'none'";
  const res = sources(csp.resourceDomains);
  const connect = sources(csp.connectDomains);
  const frame = sources(csp.frameDomains);
  const base = sources(csp.baseUriDomains);
  const plus = (s: string) => (s ? ` ${s}` : '');
  return [
    "default-src 'none'",
    `script-src 'self' 'unsafe-inline' blob: data:${plus(res)}`,
    `worker-src 'self' blob: data:${plus(res)}`,
    `style-src 'self' 'unsafe-inline'${plus(res)}`,
    `connect-src 'self'${plus(connect)}`,
    `img-src 'self' data:${plus(res)}`,
    `font-src 'self'${plus(res)}`,
    `media-src 'self' data:${plus(res)}`,
    `frame-src ${frame || "'none'"}`,
    "object-src 'none'",
    `base-uri ${base || "'self'"}`,
  ].join('; ');
}

/** The iframe `allow` attribute for the permissions a view asked for. */
export function uiAllowAttribute(permissions: UiPermissions | undefined): string {
  if (!permissions) return '';
  const out: string[] = [];
  if (permissions.camera) out.push('camera');
  if (permissions.microphone) out.push('microphone');
  if (permissions.geolocation) out.push('geolocation');
  if (permissions.clipboardWrite) out.push('clipboard-write');
  return out.join('; ');
}

import type { McpManager } from '@mcpkit/manager';
import type { Implementation } from '@mcpkit/protocol';
import type { AccessControl } from './access/access-control.js';
import type { CompositionView } from './compose/view.js';
import type { ToolSearchOptions } from './search/search-tools.js';
import type { SoleClient } from './sole-client.js';

export interface GatewayOptions {
  manager: McpManager;
  /** The backends served, in order. */
  servers: readonly string[];
  info: Implementation;
  /**
   * How tools and prompts are named: `<server><separator><name>` by the manager's host-name
   * rules (separator `__` by default); `prefix: false` passes names through (one backend).
   */
  naming?: { prefix?: boolean; separator?: string };
  /** Which backend tools are served (`toolFilter` makes one from patterns). All by default. */
  filter?: (server: string, tool: string) => boolean;
  /** How long a call waits for a reconnecting backend, and for its answer. */
  callTimeoutMs: number;
  /** Quiet time before list changes are applied (and announced once). */
  listDebounceMs?: number;
  /**
   * HTTP, 2025-11-25 sessions (SEP-1699 polling): a forwarded `tools/call` still running
   * after this long has its SSE stream closed (after the priming event and `retry`); the
   * client resumes with `Last-Event-ID` and gets the answer. Off when undefined.
   */
  ssePollAfterMs?: number;
  /**
   * The listener's one client (stdio), asked a backend's request that belongs to no call.
   * Over HTTP (many sessions) there is none, and such a request is refused.
   */
  soleClient?: SoleClient;
  /**
   * A backend's failure as the gateway's client reads it (a tool result's text, a JSON-RPC
   * error's message), in the host's words: return the text, or `undefined` to pass the
   * error's own message. The errors carry facts (`MessageTooLargeError.limitBytes`,
   * `HttpError.status`, codes); a host words its next step in its own terms. The backend's
   * own message by default.
   */
  describeError?: (error: unknown, server: string) => string | undefined;
  /**
   * What the gateway could not do (a list unread, a name collision), with the error it is
   * about when there is one (its facts, for a host to word advice from). Ignored by default.
   */
  warn?: (text: string, error?: Error) => void;
  /**
   * What a gateway config gives this gateway to serve (`compositionView(config, endpoint)`):
   * which of `servers` and of their tools, prefixes, tool and argument transforms. Swapped
   * at run time with `compose()`. Everything in `servers` by default.
   */
  composition?: CompositionView;
  /**
   * `search`: the endpoint serves a search tool and a call-by-name tool instead of listing
   * every tool (`toolSearch: true`, below); `all` (the default) lists the tools.
   */
  mode?: 'all' | 'search';
  /**
   * Search mode, for clients that take only so many tools: `tools/list` gives exactly two
   * tools, `search_tools` (`{ query, limit? }`: the best matches among the served tools, each
   * with its name, description and input schema) and `call_tool` (`{ name, arguments? }`:
   * calls a served tool by its name, forwarded as a listed tool's call is). `true` for the
   * defaults. Off by default: every tool is listed.
   */
  toolSearch?: boolean | ToolSearchOptions;
  /**
   * Per-client access (a gateway config's `access`, `AccessControl`): what each caller
   * (`ctx.authInfo`) lists and calls, rate limits, the audit log, the identity backends are
   * given. One instance for every endpoint. Everything for everyone when absent.
   */
  access?: AccessControl;
}

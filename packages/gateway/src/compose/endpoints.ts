import type { ManagerHandlers } from '@mcpkit/manager';
import {
  createGateway,
  gatewayHandlers as createGatewayHandlers,
  type Gateway,
} from '../gateway.js';
import type { GatewayOptions } from '../gateway-options.js';
import type { GatewayConfig } from './config.js';
import { type CompositionView, compositionView } from './view.js';

export interface GatewayEndpointsOptions extends Omit<GatewayOptions, 'composition' | 'mode'> {
  /** The gateway config (none: one endpoint, everything). */
  config?: GatewayConfig | undefined;
  /** The endpoint served as the default one (`/mcp`, stdio); the config's `default` when absent. */
  endpoint?: string | undefined;
  /** Only the default endpoint, no named ones (stdio: one client, one endpoint). */
  single?: boolean;
}

/**
 * One gateway per endpoint of a gateway config, over one manager: the default endpoint
 * (`/mcp`) and each named one (`/mcp/<name>`), each with its own view of the backends —
 * a client of one endpoint never lists nor calls another's tools. `reconfigure` applies a
 * new config to all of them (endpoints added, removed, their views swapped), and their
 * clients hear `list_changed` for what changed.
 */
export class GatewayEndpoints {
  /** `/mcp`: the config's default endpoint, or everything. */
  readonly default: Gateway;
  private readonly named = new Map<string, Gateway>();
  /** Each gateway's mode (a named endpoint whose mode changes is made again). */
  private readonly modes = new WeakMap<Gateway, CompositionView['mode']>();
  private config: GatewayConfig;
  private started = false;

  constructor(private readonly options: GatewayEndpointsOptions) {
    this.config = options.config ?? {};
    // compositionView throws a RangeError for an endpoint the config does not have.
    this.default = this.make(compositionView(this.config, options.endpoint));
    if (!options.single)
      for (const name of Object.keys(this.config.endpoints ?? {}))
        this.named.set(name, this.make(compositionView(this.config, name)));
  }

  /** The manager's `handlers`: a backend's requests reach the client of whichever endpoint called it. */
  static handlers(
    endpoints: () => GatewayEndpoints | undefined,
  ): (server: string) => ManagerHandlers {
    return createGatewayHandlers(() => endpoints()?.all());
  }

  /** The gateway of a named endpoint (`/mcp/<name>`). */
  get(name: string): Gateway | undefined {
    return this.named.get(name);
  }

  /** The named endpoints. */
  names(): string[] {
    return [...this.named.keys()];
  }

  /** Every gateway: the default one first. */
  all(): Gateway[] {
    return [this.default, ...this.named.values()];
  }

  async start(): Promise<void> {
    this.started = true;
    await Promise.all(this.all().map((g) => g.start()));
  }

  /**
   * Applies a new config: the default endpoint's and each kept endpoint's view is swapped
   * (its clients hear `list_changed` where a list changed), a new endpoint starts, a
   * removed one closes (its sessions end).
   */
  async reconfigure(config: GatewayConfig): Promise<void> {
    const views = new Map<string, CompositionView>();
    // Built first, so that a config that does not fit changes nothing.
    const defaultView = compositionView(config, this.options.endpoint);
    if (defaultView.mode !== this.modes.get(this.default))
      throw new RangeError(
        `the mode of the default endpoint changed (${this.modes.get(this.default)} to ${defaultView.mode}); that takes a restart`,
      );
    if (!this.options.single)
      for (const name of Object.keys(config.endpoints ?? {}))
        views.set(name, compositionView(config, name));
    this.config = config;
    const closing: Gateway[] = [];
    const starting: Gateway[] = [];
    for (const [name, gateway] of this.named)
      if (views.get(name)?.mode !== this.modes.get(gateway)) {
        this.named.delete(name);
        closing.push(gateway);
      }
    this.default.compose(defaultView);
    for (const [name, view] of views) {
      const gateway = this.named.get(name);
      if (gateway) gateway.compose(view);
      else {
        const made = this.make(view);
        this.named.set(name, made);
        starting.push(made);
      }
    }
    await Promise.all([
      ...closing.map((g) => g.close().catch(() => {})),
      ...(this.started ? starting.map((g) => g.start()) : []),
    ]);
  }

  /** `GET /healthz`: the backends' states (the same for every endpoint). */
  health(): ReturnType<Gateway['health']> {
    return this.default.health();
  }

  async close(): Promise<void> {
    await Promise.all(this.all().map((g) => g.close().catch(() => {})));
  }

  private make(view: CompositionView): Gateway {
    const { config: _, endpoint: __, single: ___, ...base } = this.options;
    const gateway = createGateway({
      ...base,
      composition: view,
      // The hook of search mode (packages/gateway/src/search): the endpoint's mode, passed on.
      ...(view.mode !== 'all' ? { mode: view.mode } : {}),
    });
    this.modes.set(gateway, view.mode);
    return gateway;
  }
}

/** One gateway per endpoint of a config, over one manager (see `GatewayEndpoints`). */
export function createGatewayEndpoints(options: GatewayEndpointsOptions): GatewayEndpoints {
  return new GatewayEndpoints(options);
}

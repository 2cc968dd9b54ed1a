import type { Resource, ResourceTemplate } from '@mcpkit/protocol';

/** A resource, with the server it comes from. */
export type HostResource = Resource & { readonly server: string };
/** A resource template, with the server it comes from. */
export type HostResourceTemplate = ResourceTemplate & { readonly server: string };

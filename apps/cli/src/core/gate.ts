import { ServerNotEnabledError } from '@mcpkit/config';
import { notStartedHint, refusalFacts } from './server-selection.js';
import { xaaNextStep } from './xaa-advice.js';

/**
 * The one gate between the config and the network or a process is `@mcpkit/config`'s
 * `assertMayContact` (the manager's transport factory calls it too): every CLI path that
 * makes a transport, runs a headers helper or talks OAuth to a server calls it first.
 */
export { assertMayContact, ServerNotEnabledError } from '@mcpkit/config';

/** The gate's refusal in the CLI's words: why, and what to run (nothing was sent to it). */
export function refusalText(error: ServerNotEnabledError): string {
  return `${notStartedHint(refusalFacts(error))} (nothing was sent to it)`;
}

/** An error's text for stderr: the gate's refusal in the CLI's words, else its message. */
export function errorText(error: unknown): string {
  if (ServerNotEnabledError.isInstance(error)) return refusalText(error);
  const next = xaaNextStep(error);
  return next ? `${(error as Error).message}; ${next}` : (error as Error).message;
}

import { ServerUnavailableError } from './errors.js';
import type { ResolvedHints } from './hints.js';
import type { ServerState } from './state.js';

/** Why a call cannot reach a server in this state, and what the user can do about it. */
export function unavailableError(state: ServerState, hints: ResolvedHints): ServerUnavailableError {
  const name = state.name;
  switch (state.state) {
    case 'failed':
      return new ServerUnavailableError(name, 'failed', state.error.message, {
        cause: state.error,
        failure: state.failure,
        nextStep: state.nextStep,
      });
    case 'needs-auth': {
      // The state's error already says how to sign in, unless it came from elsewhere.
      const signIn = hints.signIn(name);
      const text = state.error.message;
      return new ServerUnavailableError(
        name,
        'needs-auth',
        text.includes(signIn) ? text : `${text}; ${signIn}`,
        { cause: state.error, failure: state.failure, nextStep: state.nextStep },
      );
    }
    case 'disabled':
      // The reason names the server and its next step already (config, host or disconnect).
      return new ServerUnavailableError(name, 'disabled', state.reason, {
        ...(state.failure ? { failure: state.failure } : {}),
        ...(state.nextStep ? { nextStep: state.nextStep } : {}),
      });
    case 'pending':
      return new ServerUnavailableError(
        name,
        'reconnecting',
        `attempt ${state.reconnectAttempt} did not succeed${state.reason ? ` (${state.reason})` : ''}; it is retried automatically, or ${hints.reconnect(name)}`,
      );
    default:
      return new ServerUnavailableError(
        name,
        'not connected',
        `${hints.reconnect(name)} to try again`,
      );
  }
}

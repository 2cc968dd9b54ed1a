// NOT PUBLIC API. `@mcpkit/server/internal` holds what mcpkit's own packages (the gateway)
// share with the server: the loopback host/origin checks and the tasks extension's owner
// lookups. Anything here may change or go in any release, patch releases included, without
// a changeset entry for your code: import from `@mcpkit/server` instead. It is not covered
// by the API report either.
export { LOOPBACK_HOSTS, normalizeOrigin, refuseHostOrOrigin } from '../http/host-check.js';
export { declaresTasks, taskOwner } from '../tasks-ext.js';

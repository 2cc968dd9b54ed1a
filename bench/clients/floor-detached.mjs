// The raw floor (floor.mjs), with its server spawned the way StdioTransport spawns one: in
// a process group and session of its own (`detached: true`), so that close() can end the
// whole tree. On a Linux with sched_autogroup a new session is also a new scheduling
// group; this client shows what that alone costs a sequential exchange.
import { open as openFloor } from './floor.mjs';

export const open = (command, args) => openFloor(command, args, { detached: true });

// The server every manager bench row talks to: the hand-written NDJSON echo server that
// the other stdio benches use, so the client side is what gets measured.
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const here = path.dirname(fileURLToPath(import.meta.url));
export const echoServer = path.join(here, '../servers/echo-server.mjs');
/** The echo server behind a wrapper that appends one line to a file per process start. */
export const countingEchoServer = path.join(here, 'counting-echo-server.mjs');

// `node --import ./record-loads.mjs …`: every module the program loads (its resolved URL) is
// appended to the file named by MCPKIT_LOAD_LOG, one per line.
import { register } from 'node:module';

register('./record-loads-hooks.mjs', import.meta.url);

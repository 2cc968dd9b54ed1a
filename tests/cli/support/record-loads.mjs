// `node --import ./record-loads.mjs …`: every module the program loads (its resolved URL) is
// appended to the file named by MCPKIT_LOAD_LOG, one per line.
// With MCPKIT_BUILTIN_LOG, the Node built-in modules loaded by the time the process exits
// (`process.moduleLoadList`: `require()` of a built-in passes no module hook) go to that file.
import { appendFileSync } from 'node:fs';
import { register } from 'node:module';

register('./record-loads-hooks.mjs', import.meta.url);

const builtinLog = process.env.MCPKIT_BUILTIN_LOG;
if (builtinLog)
  process.on('exit', () => {
    const builtins = process.moduleLoadList
      .filter((m) => m.startsWith('NativeModule '))
      .map((m) => m.slice('NativeModule '.length));
    appendFileSync(builtinLog, `${builtins.join('\n')}\n`);
  });

// `node --require ./record-builtins.cjs …`: the Node built-in modules loaded by the time the
// process exits go to the file named by MCPKIT_BUILTIN_LOG, one per line, then a line `--`,
// then the files in the CommonJS require cache. Unlike record-loads.mjs (`--import`, a module
// hook), it does not make Node run the program through its ES module loader, so a run that
// never needs that loader shows it.
const { writeFileSync } = require('node:fs');
const Module = require('node:module');

process.on('exit', () => {
  const builtins = process.moduleLoadList
    .filter((m) => m.startsWith('NativeModule '))
    .map((m) => m.slice('NativeModule '.length));
  const required = Object.keys(Module._cache).filter((file) => file !== __filename);
  writeFileSync(process.env.MCPKIT_BUILTIN_LOG, `${[...builtins, '--', ...required].join('\n')}\n`);
});

import { defineConfig } from 'tsup';

// `pnpm build` empties dist first (package.json): the builds below write beside each other.
export default defineConfig([
  {
    // The package's bin: a CommonJS launcher (issue #21: no ES module loader for
    // `--version` and `list`); it requires list.cjs and imports the ES module entry below,
    // which it leaves external.
    entry: { bin: 'src/launcher.ts' },
    format: ['cjs'],
    target: 'node20',
    sourcemap: true,
    banner: { js: '#!/usr/bin/env node' },
    esbuildPlugins: [
      {
        name: 'esm-entry-external',
        setup(build) {
          build.onResolve({ filter: /^\.\/bin\.js$/ }, (args) => ({
            path: args.path,
            external: true,
          }));
        },
      },
    ],
  },
  {
    // `mcpkit [--json] list`, which the launcher requires: the CLI's own modules of that
    // command in one CommonJS file; the @mcpkit packages stay external (required as the ES
    // modules they are), `import.meta.url` is shimmed for the self-reference check.
    entry: { list: 'src/list-fast.ts' },
    format: ['cjs'],
    target: 'node20',
    sourcemap: true,
    shims: true,
    noExternal: [/^@mcpkit\/(config|jsonrpc)(\/|$)/],
    // config's dist orders its shared chunks with bare imports; what list uses of them is
    // imported by name, so esbuild dropping the bare ones (config has no side effects) is right.
    esbuildOptions(options) {
      options.logOverride = { 'ignored-bare-import': 'silent' };
    },
  },
  {
    entry: ['src/bin.ts'],
    format: ['esm'],
    target: 'node20',
    sourcemap: true,
  },
  {
    // `mcpkit apps`: the official MCP Apps host bridge (@modelcontextprotocol/ext-apps
    // app-bridge), bundled for the browser page the command serves.
    entry: { bridge: 'src/commands/apps-host/bridge-entry.ts' },
    outDir: 'dist-apps-host',
    format: ['esm'],
    platform: 'browser',
    target: 'es2022',
    noExternal: [/.*/],
    minify: true,
    splitting: false,
    clean: true,
  },
]);

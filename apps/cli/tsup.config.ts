import { defineConfig } from 'tsup';

export default defineConfig([
  {
    entry: ['src/bin.ts'],
    format: ['esm'],
    target: 'node20',
    sourcemap: true,
    clean: true,
    banner: { js: '#!/usr/bin/env node' },
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

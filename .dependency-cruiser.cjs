// The arrows of ../shared/docs/architecture.md ("Direction of dependencies"), checked by
// `pnpm check`. Each package may import only the @mcpkit packages listed for it here; no
// file may reach into another package's folder except through its published name.
/** package folder → the package folders it may depend on (besides itself). */
const allowed = {
  jsonrpc: [],
  protocol: ['jsonrpc'],
  'transport-in-process': ['jsonrpc'],
  'transport-stdio': ['jsonrpc'],
  // The 2026-07-28 request-header rules live in protocol (see its README).
  'transport-streamable-http': ['jsonrpc', 'protocol'],
  'transport-sse': ['jsonrpc'],
  'transport-websocket': ['jsonrpc'],
  // Its error classes share the base class and codes of jsonrpc (no run-time dependencies).
  config: ['jsonrpc'],
  auth: ['jsonrpc'],
  client: ['jsonrpc', 'protocol'],
  manager: [
    'jsonrpc',
    'protocol',
    'client',
    'config',
    'auth',
    'transport-in-process',
    'transport-stdio',
    'transport-streamable-http',
    'transport-sse',
    'transport-websocket',
  ],
  server: ['jsonrpc', 'protocol'],
  gateway: ['manager', 'server', 'client', 'protocol', 'jsonrpc'],
  // Implements jsonrpc's instrumentation hooks; knows the manager only by its events' shape.
  otel: ['jsonrpc'],
  'ai-sdk': ['manager', 'jsonrpc'],
  // Framework adapters: the manager (and its types) below them, nothing upward.
  'openai-agents': ['manager', 'jsonrpc'],
  langchain: ['manager', 'jsonrpc'],
  mastra: ['manager', 'jsonrpc'],
};

const packageRules = Object.entries(allowed).map(([pkg, deps]) => ({
  name: `layer-${pkg}`,
  comment: `packages/${pkg} may depend only on: ${deps.join(', ') || 'no @mcpkit package'} (architecture.md)`,
  severity: 'error',
  from: { path: `^packages/${pkg}/src/` },
  to: {
    path: '^packages/([^/]+)/',
    pathNot: [`^packages/${pkg}/`, ...deps.map((d) => `^packages/${d}/`)],
  },
}));

module.exports = {
  forbidden: [
    ...packageRules,
    {
      name: 'no-upward-from-packages',
      comment: 'a published package never imports the CLI, the tests or the benchmarks',
      severity: 'error',
      from: { path: '^packages/' },
      to: { path: '^(apps|tests|bench|examples)/' },
    },
    {
      name: 'no-reaching-into-packages',
      comment:
        'import another package by its name (@mcpkit/x), never by a path into its folder: its files are private',
      severity: 'error',
      from: { path: '^packages/([^/]+)/' },
      to: { path: '^packages/', pathNot: '^packages/$1/', dependencyTypes: ['local'] },
    },
    {
      name: 'no-reaching-into-packages-from-outside',
      comment: 'the CLI, tests, benchmarks and examples use packages by their names, like users do',
      severity: 'error',
      from: { path: '^(apps|tests|bench|examples)/' },
      to: { path: '^packages/', dependencyTypes: ['local'] },
    },
    {
      name: 'no-unresolvable',
      comment:
        'an import that does not resolve is an undeclared dependency (e.g. an upward import of a package not in package.json)',
      severity: 'error',
      from: { path: '^(packages|apps)/' },
      to: { couldNotResolve: true },
    },
    {
      name: 'no-cycles-in-a-package',
      comment: 'a run-time import cycle (type-only imports do not count: they vanish at build)',
      severity: 'error',
      from: { path: '^packages/' },
      to: { circular: true, viaOnly: { dependencyTypesNot: ['type-only', 'type-import'] } },
    },
  ],
  options: {
    doNotFollow: { path: 'node_modules' },
    exclude: { path: '(^|/)(dist|node_modules)/|\\.test\\.ts$' },
    tsPreCompilationDeps: true,
    tsConfig: { fileName: 'tsconfig.base.json' },
    enhancedResolveOptions: {
      exportsFields: ['exports'],
      conditionNames: ['@mcpkit/source', 'import', 'types', 'default'],
      extensions: ['.ts', '.js', '.mjs', '.json'],
    },
  },
};

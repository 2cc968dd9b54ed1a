/** The JSON the CLI's bundle carries (imported `with { type: 'json' }`; esbuild inlines it). */
declare module '*/server.schema.json' {
  const schema: Record<string, unknown>;
  export default schema;
}

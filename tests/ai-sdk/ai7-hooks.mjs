// Loaded with `node --import` on Node 22: every import of `ai` (and `ai/…`) in this
// process, the built @mcpkit/ai-sdk's included, resolves to the `ai7` alias (ai 7.x), the
// way a host that installed ai 7 would see it. Module hooks, not a copy of the package.
import { registerHooks } from 'node:module';

registerHooks({
  resolve(specifier, context, nextResolve) {
    if (specifier === 'ai' || specifier.startsWith('ai/'))
      return nextResolve(`ai7${specifier.slice(2)}`, context);
    return nextResolve(specifier, context);
  },
});

// Writes schema.json from the built package (run after "pnpm build").
import { writeFileSync } from 'node:fs';
import { mcpJsonSchema } from '../dist/index.js';

writeFileSync(
  new URL('../schema.json', import.meta.url),
  `${JSON.stringify(mcpJsonSchema(), null, 2)}\n`,
);
console.log('schema.json written');

// Writes schema.json from the built package (run after "pnpm build").
import { writeFileSync } from 'node:fs';
import { gatewayConfigJsonSchema } from '../dist/index.js';

writeFileSync(
  new URL('../schema.json', import.meta.url),
  `${JSON.stringify(gatewayConfigJsonSchema(), null, 2)}\n`,
);
console.log('schema.json written');

import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const echoServer = fileURLToPath(new URL('./compose-echo-server.mjs', import.meta.url));

/** Two echo backends: `notes` and `files` (the same tools; each answer names its backend). */
export function composeBackends(): Record<string, unknown> {
  return {
    notes: { command: process.execPath, args: [echoServer, 'notes'] },
    files: { command: process.execPath, args: [echoServer, 'files'] },
  };
}

/**
 * The suite's gateway config: `notes`' `write` renamed `save_note` with its arguments
 * transformed, `files` under the prefix `fs`, and two team endpoints.
 */
export const composeConfig = {
  servers: {
    notes: {
      tags: ['team-a'],
      exclude: ['delete_*'],
      tools: {
        write: {
          name: 'save_note',
          description: 'Saves a note',
          arguments: {
            root: { hide: true, value: '/srv/notes' },
            path: { rename: 'file', description: 'the note file' },
            mode: { default: 'append' },
          },
        },
      },
    },
    files: { prefix: 'fs', tags: ['team-b'] },
  },
  endpoints: {
    'team-a': { tags: ['team-a'] },
    'team-b': { servers: ['files'], tools: [{ server: 'files', tool: 'read_*' }] },
  },
};

/** What each endpoint lists with `composeConfig`. */
export const expectedTools = {
  all: ['fs__delete_note', 'fs__read_note', 'fs__write', 'notes__read_note', 'save_note'],
  'team-a': ['notes__read_note', 'save_note'],
  'team-b': ['fs__read_note'],
};

/** A folder with `gateway.jsonc` (a comment on top: it is JSONC); removed by `cleanup`. */
export function configFile(config: unknown = composeConfig): {
  file: string;
  write(config: unknown): void;
  writeText(text: string): void;
  cleanup(): void;
} {
  const dir = mkdtempSync(path.join(tmpdir(), 'mcpkit-compose-'));
  const file = path.join(dir, 'gateway.jsonc');
  const writeText = (text: string) => writeFileSync(file, text);
  const write = (c: unknown) =>
    writeText(`// mcpkit gateway config (test)\n${JSON.stringify(c, null, 2)}\n`);
  write(config);
  return { file, write, writeText, cleanup: () => rmSync(dir, { recursive: true, force: true }) };
}

export const sorted = (tools: Array<{ name: string }>) => tools.map((t) => t.name).sort();

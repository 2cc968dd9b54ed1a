import { fileURLToPath } from 'node:url';
import { resolveConfig } from '@mcpkit/config';
import { McpManager } from '@mcpkit/manager';

/** The adapters' fixture server (tests/fixtures/adapter-server.mjs), as a stdio child. */
export const adapterServerPath = fileURLToPath(
  new URL('../fixtures/adapter-server.mjs', import.meta.url),
);

/** A real manager over the adapter fixture server (`fixture`) as a stdio child process. */
export function adapterManager(clientName: string): McpManager {
  const { servers } = resolveConfig({
    sources: [
      {
        scope: 'dynamic',
        source: `${clientName} test`,
        value: {
          mcpServers: { fixture: { command: process.execPath, args: [adapterServerPath] } },
        },
      },
    ],
  });
  return new McpManager({ servers, clientInfo: { name: clientName, version: '0.0.0' } });
}

/** Resolves when the fixture server writes a stderr line containing `text`. */
export function stderrLine(manager: McpManager, text: string): Promise<void> {
  return new Promise((resolve) => {
    const off = manager.on('stderr', (e) => {
      if (e.text.includes(text)) {
        off();
        resolve();
      }
    });
  });
}

import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterEach, describe, expect, it } from 'vitest';
import {
  processesWith,
  type RecordingServer,
  recordingServer,
  runCli,
  type Sandbox,
  sandbox,
} from '../hostile/cli-harness.js';

/**
 * `--max-message-bytes <n>` (issue #12: "raise maxMessageBytes" named a knob the CLI did
 * not have). A server answers a call with a 300 000-byte message: over a limit of 100 000
 * the call fails with the server's name, the limit and the flag to raise it; with a limit
 * of 1 000 000 it goes through. Over stdio and over Streamable HTTP.
 */
const fixture = fileURLToPath(new URL('./servers/cli-fixture-server.mjs', import.meta.url));
const SIZE = 300_000;

let box: Sandbox | undefined;
let http: RecordingServer | undefined;
afterEach(async () => {
  await http?.close();
  http = undefined;
  if (box) expect(processesWith(box.dir)).toEqual([]);
  box?.[Symbol.dispose]();
  box = undefined;
});

/** A Streamable HTTP server of the 2025 era whose one tool answers with `SIZE` bytes of text. */
async function bigHttpServer(): Promise<RecordingServer> {
  return recordingServer((req, res, body) => {
    const message = body ? JSON.parse(body) : undefined;
    const answer = (result: unknown) => {
      res.writeHead(200, { 'content-type': 'application/json', 'mcp-session-id': 'big-1' });
      res.end(JSON.stringify({ jsonrpc: '2.0', id: message.id, result }));
    };
    if (req.method === 'DELETE') res.writeHead(200).end();
    else if (req.method !== 'POST') res.writeHead(405).end();
    else if (message?.id === undefined) res.writeHead(202).end();
    else if (message.method === 'initialize')
      answer({
        protocolVersion: message.params.protocolVersion,
        capabilities: { tools: {} },
        serverInfo: { name: 'big-http', version: '1' },
      });
    else if (message.method === 'tools/list')
      answer({ tools: [{ name: 'big', inputSchema: { type: 'object' } }] });
    else if (message.method === 'tools/call')
      answer({ content: [{ type: 'text', text: 'x'.repeat(SIZE) }] });
    else {
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end(
        JSON.stringify({
          jsonrpc: '2.0',
          id: message.id,
          error: { code: -32601, message: 'Method not found' },
        }),
      );
    }
  });
}

async function setup() {
  box = sandbox('mcpkit-cli-max-bytes-');
  http = await bigHttpServer();
  const config = box.file('servers.json', {
    mcpServers: {
      local: { command: process.execPath, args: [fixture, 'ok', path.join(box.dir, 'fx.log')] },
      web: { type: 'http', url: `${http.url}/mcp` },
    },
  });
  return (...args: string[]) =>
    runCli(['--strict-config', '-c', config, ...args], { env: box!.env, cwd: box!.cwd });
}

describe('mcpkit --max-message-bytes', () => {
  it.each([
    ['local', 'stdio'],
    ['web', 'Streamable HTTP'],
  ])(
    '%s (%s): a message over the limit fails naming the server and the flag; a higher limit lets it through',
    async (server) => {
      const cli = await setup();
      const args = ['call', server, 'big', `{"size":${SIZE}}`];
      const refused = await cli('--max-message-bytes', '100000', ...args);
      expect(refused.code).toBe(1);
      expect(refused.stdout).toBe('');
      expect(refused.stderr).toContain(`server "${server}"`);
      expect(refused.stderr).toContain('100000-byte');
      expect(refused.stderr).toContain('--max-message-bytes <n>');
      expect(refused.stderr).not.toContain('maxMessageBytes');
      // One mention of the server, not one per layer the error went through.
      expect(refused.stderr.split(`server "${server}"`)).toHaveLength(2);
      const accepted = await cli('--max-message-bytes', '1000000', ...args);
      expect(accepted.stderr).toBe('');
      expect(accepted.code).toBe(0);
      expect(accepted.stdout.trim()).toBe('x'.repeat(SIZE));
    },
  );

  it.each(['0', '-5', '1e6', '12abc', '1073741825', ''])(
    '"%s" is a usage error: one line, exit 2, nothing started',
    async (value) => {
      const cli = await setup();
      const r = await cli(`--max-message-bytes=${value}`, 'call', 'local', 'big', '{"size":1}');
      expect(r.code).toBe(2);
      expect(r.stderr.trimEnd().split('\n')).toEqual([
        `mcpkit: --max-message-bytes must be a whole number of bytes from 1 to 1073741824, got "${value}" (see "mcpkit --help")`,
      ]);
      expect(http!.requests).toEqual([]);
    },
  );
});

import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { composeBackends, configFile, expectedTools, sorted } from './compose-support.js';
import {
  httpClient,
  type SdkClient,
  type SdkKind,
  stdioClient,
} from './gateway-compose-clients.js';
import { gatewayArgs, type HttpGateway, startHttpGateway } from './gateway-process.js';

/**
 * `mcpkit serve --gateway-config` (the built CLI, a real child process) in front of two
 * echo backends whose tools answer with the arguments they received, with the official SDK
 * v1 and v2 clients over Streamable HTTP and stdio: renamed tools and arguments, a hidden
 * argument, defaults, and endpoints that never show or run each other's tools.
 */
const TOKEN = 'compose-test-token-0123456789abcdef';
const kinds: SdkKind[] = ['v1', 'v2-legacy', 'v2-auto'];
const config = configFile();
let gateway: HttpGateway;
const opened: SdkClient[] = [];
beforeAll(async () => {
  gateway = await startHttpGateway(composeBackends(), [
    '--token',
    TOKEN,
    '--gateway-config',
    config.file,
  ]);
}, 60_000);
afterAll(async () => {
  for (const c of opened.splice(0)) await c.close().catch(() => {});
  await gateway?.close();
  config.cleanup();
});

const endpointUrl = (name?: string) =>
  new URL(name === undefined ? gateway.url.href : `${gateway.url.href}/${name}`);

async function client(kind: SdkKind, endpoint?: string): Promise<SdkClient> {
  const c = await httpClient(kind, endpointUrl(endpoint), TOKEN);
  opened.push(c);
  return c;
}

/** The calls every transport and client must get right (one client of each endpoint). */
async function checkTransforms(all: SdkClient): Promise<void> {
  const tools = await all.listTools();
  const save = tools.find((t) => t.name === 'save_note');
  expect(save?.description).toBe('Saves a note');
  expect(save?.inputSchema).toEqual({
    type: 'object',
    properties: {
      file: { type: 'string', description: 'the note file' },
      text: { type: 'string' },
      mode: { type: 'string', default: 'append' },
    },
    required: ['file', 'text'],
  });
  // The backend receives its own argument names, the hidden value and the default.
  const saved = await all.callTool('save_note', { file: 'a.md', text: 'hi' });
  expect(saved.isError).toBe(false);
  expect(saved.text.startsWith('notes write ')).toBe(true);
  expect(JSON.parse(saved.text.slice('notes write '.length))).toEqual({
    path: 'a.md',
    text: 'hi',
    mode: 'append',
    root: '/srv/notes',
  });
  // A prefix of the config's, and the backend's own name under it.
  expect((await all.callTool('fs__write', { path: 'p', text: 't', root: '/r' })).text).toBe(
    'files write {"path":"p","text":"t","root":"/r"}',
  );
}

/** A client may not set a hidden argument, nor a renamed one by its backend name. */
async function checkHiddenRefused(all: SdkClient): Promise<void> {
  for (const args of [
    { file: 'a.md', text: 'hi', root: '/etc' },
    { path: 'a.md', text: 'hi' },
  ]) {
    const refused = await all.callTool('save_note', args).then(
      (r) => (r.isError ? r.text : `accepted: ${r.text}`),
      (error: Error) => error.message,
    );
    expect(refused).toMatch(/takes no argument "(root|path)"/);
  }
}

/** What a client of `team-b` sees and may call. */
async function checkTeamB(teamB: SdkClient): Promise<void> {
  expect(sorted(await teamB.listTools())).toEqual(expectedTools['team-b']);
  expect((await teamB.callTool('fs__read_note', { id: '7' })).text).toBe(
    'files read_note {"id":"7"}',
  );
  for (const other of ['save_note', 'notes__read_note', 'fs__write']) {
    const outcome = await teamB.callTool(other, { id: '7' }).then(
      (r) => (r.isError ? r.text : `ran: ${r.text}`),
      (error: Error) => error.message,
    );
    expect(outcome).toContain('Unknown tool');
  }
}

describe('gateway composition over HTTP, official SDK clients', () => {
  it.each(kinds)(
    '%s: /mcp lists the composed tools; renamed tools reach the backend with its own argument names',
    async (kind) => {
      const all = await client(kind);
      expect(sorted(await all.listTools())).toEqual(expectedTools.all);
      await checkTransforms(all);
      await checkHiddenRefused(all);
    },
  );

  it.each(kinds)(
    '%s: a client of one endpoint never lists nor calls another endpoint’s tools',
    async (kind) => {
      const teamA = await client(kind, 'team-a');
      expect(sorted(await teamA.listTools())).toEqual(expectedTools['team-a']);
      const outcome = await teamA.callTool('fs__read_note', { id: '1' }).then(
        (r) => (r.isError ? r.text : `ran: ${r.text}`),
        (error: Error) => error.message,
      );
      expect(outcome).toContain('Unknown tool');
      await checkTeamB(await client(kind, 'team-b'));
    },
  );

  it('an endpoint the config does not have is 404', async () => {
    const response = await fetch(endpointUrl('team-c'), {
      method: 'POST',
      headers: {
        authorization: `Bearer ${TOKEN}`,
        'content-type': 'application/json',
        accept: 'application/json, text/event-stream',
      },
      body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'ping' }),
    });
    expect(response.status).toBe(404);
  });
});

describe('gateway composition over stdio, official SDK clients', () => {
  it.each(kinds)('%s: the default endpoint, transforms both ways', async (kind) => {
    const { args, env, cleanup } = gatewayArgs(composeBackends(), [
      '--gateway-config',
      config.file,
    ]);
    const all = await stdioClient(kind, args, env);
    try {
      expect(sorted(await all.listTools())).toEqual(expectedTools.all);
      await checkTransforms(all);
      await checkHiddenRefused(all);
    } finally {
      await all.close();
      cleanup();
    }
  });

  it.each(kinds)('%s: --endpoint team-b serves that endpoint only', async (kind) => {
    const { args, env, cleanup } = gatewayArgs(composeBackends(), [
      '--gateway-config',
      config.file,
      '--endpoint',
      'team-b',
    ]);
    const teamB = await stdioClient(kind, args, env);
    try {
      await checkTeamB(teamB);
    } finally {
      await teamB.close();
      cleanup();
    }
  });
});

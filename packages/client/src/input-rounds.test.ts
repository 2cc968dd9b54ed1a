import { JsonRpcPeer } from '@mcpkit/jsonrpc';
import { createInProcessPair } from '@mcpkit/transport-in-process';
import { describe, expect, it } from 'vitest';
import { InvalidResultError, McpClient } from './index.js';

/** A scripted 2026-07-28 server on the other end of an in-process pair; `seen` gets each request's params. */
async function serveModern(setup: (server: JsonRpcPeer, seen: Record<string, unknown>[]) => void) {
  const [clientEnd, serverEnd] = createInProcessPair();
  const server = new JsonRpcPeer(serverEnd);
  const seen: Record<string, unknown>[] = [];
  server.setRequestHandler('server/discover', () => ({
    resultType: 'complete',
    supportedVersions: ['2026-07-28'],
    capabilities: { tools: {}, prompts: {}, resources: {} },
    _meta: { 'io.modelcontextprotocol/serverInfo': { name: 'scripted', version: '1' } },
  }));
  setup(server, seen);
  await server.start();
  return { clientEnd, server, seen };
}

const twoRequests = {
  ask_name: { method: 'elicitation/create', params: { message: 'name?', requestedSchema: {} } },
  ask_model: { method: 'sampling/createMessage', params: { messages: [], maxTokens: 5 } },
};

describe("McpClient: caller-driven input rounds (inputRequired: 'return')", () => {
  it('hands back every input request with its key and the request state, then sends the caller answers', async () => {
    const { clientEnd, seen } = await serveModern((server, seen) => {
      server.setRequestHandler('tools/call', (params: Record<string, unknown>) => {
        seen.push(params);
        if (params.requestState === 'round-1')
          return { resultType: 'complete', content: [{ type: 'text', text: 'done' }] };
        return {
          resultType: 'input_required',
          inputRequests: twoRequests,
          requestState: 'round-1',
        };
      });
    });
    // No handlers: with the default the client would fail for want of them.
    const client = new McpClient({ eraCache: false });
    await client.connect(clientEnd);
    const first = await client.callTool({ name: 't' }, { inputRequired: 'return' });
    expect(first).toEqual({
      resultType: 'input_required',
      inputRequests: twoRequests,
      requestState: 'round-1',
    });
    const answers = {
      ask_name: { action: 'accept', content: { name: 'Ada' } },
      ask_model: { role: 'assistant', content: { type: 'text', text: 'hi' }, model: 'm' },
    };
    const second = await client.callTool(
      { name: 't' },
      { inputRequired: 'return', inputResponses: answers, requestState: 'round-1' },
    );
    expect(second).toEqual({ resultType: 'complete', content: [{ type: 'text', text: 'done' }] });
    expect(seen[1]).toMatchObject({ name: 't', inputResponses: answers, requestState: 'round-1' });
    expect(seen[0]).not.toHaveProperty('inputResponses');
    await client.close();
  });

  it('prompts/get and resources/read return the raw round too', async () => {
    const { clientEnd, seen } = await serveModern((server, seen) => {
      const ask = (params: Record<string, unknown>) => {
        seen.push(params);
        return { resultType: 'input_required', inputRequests: { k: twoRequests.ask_name } };
      };
      server.setRequestHandler('prompts/get', ask);
      server.setRequestHandler('resources/read', ask);
    });
    const client = new McpClient({ eraCache: false });
    await client.connect(clientEnd);
    const prompt = await client.getPrompt('p', { a: '1' }, { inputRequired: 'return' });
    const read = await client.readResource('file:///x', {
      inputRequired: 'return',
      inputResponses: { k: { action: 'decline' } },
    });
    expect(prompt).toMatchObject({ resultType: 'input_required', inputRequests: { k: {} } });
    expect(read).toMatchObject({ resultType: 'input_required' });
    expect(seen[1]).toMatchObject({
      uri: 'file:///x',
      inputResponses: { k: { action: 'decline' } },
    });
    await client.close();
  });

  it('a malformed input_required result is an InvalidResultError, not passed on', async () => {
    const { clientEnd } = await serveModern((server) => {
      server.setRequestHandler('tools/call', () => ({
        resultType: 'input_required',
        inputRequests: { k: { params: {} } },
      }));
    });
    const client = new McpClient({ name: 'bad', eraCache: false });
    await client.connect(clientEnd);
    await expect(client.callTool({ name: 't' }, { inputRequired: 'return' })).rejects.toThrow(
      InvalidResultError,
    );
    await client.close();
  });
});

describe('McpClient: per-request client capabilities (clientCapabilities option)', () => {
  it("replaces the request _meta's clientCapabilities for that request only", async () => {
    const { clientEnd, seen } = await serveModern((server, seen) => {
      server.setRequestHandler('tools/call', (params: Record<string, unknown>) => {
        seen.push(params);
        return { resultType: 'complete', content: [] };
      });
    });
    const client = new McpClient({ eraCache: false, capabilities: { roots: {} } });
    await client.connect(clientEnd);
    await client.callTool(
      { name: 't', _meta: { trace: 'x' } },
      { clientCapabilities: { elicitation: {} } },
    );
    await client.callTool({ name: 't' });
    const metaOf = (i: number) => seen[i]!._meta as Record<string, unknown>;
    expect(metaOf(0)['io.modelcontextprotocol/clientCapabilities']).toEqual({ elicitation: {} });
    expect(metaOf(0).trace).toBe('x');
    expect(metaOf(0)['io.modelcontextprotocol/protocolVersion']).toBe('2026-07-28');
    expect(metaOf(1)['io.modelcontextprotocol/clientCapabilities']).toEqual({ roots: {} });
    await client.close();
  });
});

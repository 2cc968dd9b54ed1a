// The conformance driver: the official runner starts it as `driver.mjs <url>` with
// MCP_CONFORMANCE_SCENARIO (and sometimes MCP_CONFORMANCE_CONTEXT) set; it does the
// scenario's work with @mcpkit/client and exits 0. The client negotiates the era itself
// (server/discover, else initialize), as a host's would. Uses the built packages
// ("pnpm test" builds first).
import { appendFileSync } from 'node:fs';
import {
  ClientCredentialsProvider,
  EnterpriseAuthProvider,
  OAuthProvider,
  WorkloadIdentityProvider,
} from '@mcpkit/auth';
import { McpClient, SkillVerificationError } from '@mcpkit/client';
import { StreamableHttpTransport } from '@mcpkit/transport-streamable-http';

const url = process.argv[2];
const scenario = process.env.MCP_CONFORMANCE_SCENARIO;
const context = JSON.parse(process.env.MCP_CONFORMANCE_CONTEXT ?? '{}');

const client = new McpClient({
  name: 'conformance',
  clientInfo: { name: 'mcpkit-conformance', version: '0.1.0' },
  // Each scenario starts a fresh server: nothing learned of an earlier one applies.
  eraCache: false,
  handlers: {
    // Accept with no answers of our own: every field comes from the schema's defaults
    // (a boolean "confirmed" field is answered yes).
    elicitation: (params) => {
      const properties = params.requestedSchema?.properties ?? {};
      return {
        action: 'accept',
        content:
          'confirmed' in properties && !('default' in properties.confirmed)
            ? { confirmed: true }
            : {},
      };
    },
    applyElicitationDefaults: true,
    sampling: () => ({
      role: 'assistant',
      content: { type: 'text', text: 'conformance' },
      model: 'none',
      stopReason: 'endTurn',
    }),
    roots: () => [{ uri: 'file:///tmp', name: 'tmp' }],
  },
});

/** A value that satisfies a (simple) JSON Schema. */
function sample(schema) {
  if (!schema || typeof schema !== 'object') return 'test';
  if (schema.default !== undefined) return schema.default;
  if (Array.isArray(schema.enum)) return schema.enum[0];
  switch (schema.type) {
    case 'integer':
    case 'number':
      return 1;
    case 'boolean':
      return true;
    case 'array':
      return [];
    case 'object': {
      const out = {};
      for (const key of schema.required ?? []) out[key] = sample(schema.properties?.[key]);
      return out;
    }
    default:
      return 'test';
  }
}

/** Uses every tool, resource and prompt the server offers. */
async function exercise() {
  const tools = await client.listTools();
  const given = context.toolCalls ?? [];
  for (const call of given) await client.callTool(call);
  for (const tool of tools) {
    if (given.some((c) => c.name === tool.name)) continue;
    await client.callTool({ name: tool.name, arguments: sample(tool.inputSchema) });
  }
  for (const resource of await client.listResources()) await client.readResource(resource.uri);
  for (const prompt of await client.listPrompts()) {
    const args = {};
    for (const a of prompt.arguments ?? []) if (a.required) args[a.name] = 'test';
    await client.getPrompt(prompt.name, args);
  }
}

/**
 * A line for the test: the runner shows a passing client's output nowhere, so it also goes
 * to the file MCPKIT_DRIVER_LOG names, when set.
 */
function say(line) {
  console.error(line);
  if (process.env.MCPKIT_DRIVER_LOG) appendFileSync(process.env.MCPKIT_DRIVER_LOG, `${line}\n`);
}

/**
 * What a host does with skills (SEP-2640): list them (no file is fetched), then, when it
 * loads one, read its SKILL.md (verified) and only then its other files (each verified). A
 * skill that fails verification is refused and the host goes on; the refusal is printed so
 * the test can check which check refused it.
 */
async function loadSkills(load) {
  const skills = await client.listSkills();
  say(`skills listed: ${skills.map((s) => s.uri).join(', ') || 'none'}`);
  if (!load) return;
  for (const entry of skills) {
    try {
      const skill = await client.readSkill(entry);
      if (entry.resources === 'dynamic') continue;
      for (const file of entry.resources)
        if (file.uri !== entry.uri) await client.readSkillFile(skill, file.uri);
      say(`skill loaded: ${entry.uri}`);
    } catch (error) {
      if (!SkillVerificationError.isInstance(error)) throw error;
      say(`skill refused: ${error.code}: ${error.message}`);
    }
  }
}

/**
 * The user's side of the sign-in, for a test authorization server that approves at once:
 * follow nothing, read where it redirects.
 */
const approveAtOnce = {
  redirectUri: () => 'http://127.0.0.1:8976/callback',
  async authorize(authorizationUrl) {
    const res = await fetch(authorizationUrl, { redirect: 'manual' });
    const location = res.headers.get('location');
    if (!location)
      throw new Error(`the authorization endpoint answered ${res.status} without a redirect`);
    return new URL(location, authorizationUrl);
  },
};

/**
 * Workload identity (auth/wif-jwt-bearer): the platform's token is the scenario's valid
 * workload JWT. The DPoP scenarios need nothing of their own: the authorization server
 * advertises DPoP, and OAuthProvider turns it on.
 */
function workloadAuthFor(name, common) {
  if (name !== 'auth/wif-jwt-bearer') return undefined;
  return new WorkloadIdentityProvider({
    ...common,
    clientId: context.client_id,
    workloadToken: () => context.valid_jwt,
  });
}

/** The auth provider a scenario calls for (none outside auth/*). */
function authFor(name) {
  if (!name?.startsWith('auth/')) return undefined;
  const common = { serverUrl: url, serverName: 'conformance' };
  const workload = workloadAuthFor(name, common);
  if (workload) return workload;
  if (name.startsWith('auth/client-credentials-')) {
    return new ClientCredentialsProvider({
      ...common,
      clientId: context.client_id,
      ...(context.client_secret ? { clientSecret: context.client_secret } : {}),
      ...(context.private_key_pem
        ? {
            privateKey: {
              pem: context.private_key_pem,
              algorithm: context.signing_algorithm ?? 'ES256',
            },
          }
        : {}),
    });
  }
  // 0.1.16 and 0.2.0-alpha name the enterprise-managed (XAA) scenario differently.
  if (
    name === 'auth/cross-app-access-complete-flow' ||
    name === 'auth/enterprise-managed-authorization'
  ) {
    return new EnterpriseAuthProvider({
      ...common,
      clientId: context.client_id,
      clientSecret: context.client_secret,
      idp: {
        tokenEndpoint: context.idp_token_endpoint,
        clientId: context.idp_client_id,
        idToken: context.idp_id_token,
      },
    });
  }
  return new OAuthProvider({
    ...common,
    interactive: approveAtOnce,
    clientMetadataUrl: 'https://conformance-test.local/client-metadata.json',
    ...(context.client_id
      ? { client: { clientId: context.client_id, clientSecret: context.client_secret } }
      : {}),
  });
}

try {
  const auth = authFor(scenario);
  await client.connect(
    new StreamableHttpTransport({ url, name: 'conformance', ...(auth ? { auth } : {}) }),
  );
  switch (scenario) {
    case 'initialize':
      break;
    case 'tools_call': {
      const tools = await client.listTools();
      for (const tool of tools.filter((t) => t.name === 'add_numbers')) {
        await client.callTool({ name: tool.name, arguments: { a: 2, b: 3 } });
      }
      break;
    }
    case 'elicitation-sep1034-client-defaults':
      await client.callTool({ name: 'test_client_elicitation_defaults' });
      break;
    case 'sse-retry':
      await client.listTools();
      await client.callTool({ name: 'test_reconnection' });
      break;
    case 'json-schema-2020-12-preservation': {
      // Hand the focal tool's inputSchema back exactly as the client holds it.
      const tools = await client.listTools();
      const focal = tools.find((t) => t.name !== 'json_schema_echo');
      await client.callTool({
        name: 'json_schema_echo',
        arguments: { schema: focal.inputSchema },
      });
      break;
    }
    case 'json-schema-ref-no-deref':
      await client.listTools();
      break;
    case 'sep-2640-client-no-prefetch':
      await loadSkills(false);
      break;
    case 'sep-2640-client-verify-digest':
    case 'sep-2640-client-verify-size':
    case 'sep-2640-client-verify-frontmatter':
      await loadSkills(true);
      break;
    case 'request-metadata':
    case 'sep-2322-client-request-state':
    case 'http-standard-headers':
    case 'http-custom-headers':
    case 'http-invalid-tool-headers':
      await exercise();
      break;
    default:
      if (!scenario?.startsWith('auth/')) throw new Error(`unknown scenario ${scenario}`);
      await exercise();
  }
  await client.close();
  process.exit(0);
} catch (error) {
  console.error(`conformance driver: ${scenario}: ${error?.message ?? error}`);
  await client.close().catch(() => {});
  process.exit(1);
}

// The conformance driver: the official runner starts it as `driver.mjs <url>` with
// MCP_CONFORMANCE_SCENARIO set; it does the scenario's work with @mcpkit/client and exits 0.
// Uses the built packages ("pnpm test" builds first).
import { McpClient } from '@mcpkit/client';
import { StreamableHttpTransport } from '@mcpkit/transport-streamable-http';

const url = process.argv[2];
const scenario = process.env.MCP_CONFORMANCE_SCENARIO;

const client = new McpClient({
  name: 'conformance',
  clientInfo: { name: 'mcpkit-conformance', version: '0.1.0' },
  handlers: {
    // Accept with no answers of our own: every field comes from the schema's defaults.
    elicitation: () => ({ action: 'accept', content: {} }),
    applyElicitationDefaults: true,
  },
});

try {
  await client.connect(new StreamableHttpTransport({ url, name: 'conformance' }));
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
    default:
      throw new Error(`unknown scenario ${scenario}`);
  }
  await client.close();
  process.exit(0);
} catch (error) {
  console.error(`conformance driver: ${scenario}: ${error?.message ?? error}`);
  await client.close().catch(() => {});
  process.exit(1);
}

import { mkdir, mkdtemp, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';

/**
 * A fresh HOME for the built CLI in the XAA tests: its own config and data folders, and,
 * when given, the user's settings with that `identityProvider` block. `authDir` is where
 * the CLI keeps its tokens.
 */
export async function xaaHome(identityProvider?: unknown) {
  const home = await mkdtemp(path.join(tmpdir(), 'mcpkit-xaa-'));
  const env: NodeJS.ProcessEnv = {
    PATH: process.env.PATH,
    HOME: home,
    XDG_CONFIG_HOME: path.join(home, 'config'),
    XDG_DATA_HOME: path.join(home, 'data'),
  };
  if (identityProvider !== undefined) {
    await mkdir(path.join(home, 'config', 'mcpkit'), { recursive: true });
    await writeFile(
      path.join(home, 'config', 'mcpkit', 'settings.json'),
      JSON.stringify({ identityProvider }),
    );
  }
  return { home, env, authDir: path.join(home, 'data', 'mcpkit', 'auth') };
}

/** The `--config` JSON of one enterprise-managed entry, "corp", for the fixtures' MCP server. */
export function xaaConfig(stack: { mcp: { url: string }; as: { clientId: string } }): string {
  return JSON.stringify({
    mcpServers: {
      corp: { type: 'http', url: stack.mcp.url, oauth: { clientId: stack.as.clientId, xaa: true } },
    },
  });
}

// `count` stdio servers as @mcpkit/config resolves them, for McpManager.
import { resolveConfig } from '@mcpkit/config';

export function resolvedServers({ command, args, count, env }) {
  const mcpServers = {};
  for (let i = 0; i < count; i++)
    // Distinct entries, as 20 real servers would be (the echo server ignores the argument).
    mcpServers[`echo-${String(i).padStart(2, '0')}`] = {
      command,
      args: [...args, `--instance=${i}`],
      ...(env ? { env } : {}),
    };
  const { servers, errors } = resolveConfig({
    sources: [{ scope: 'dynamic', source: 'bench', value: { mcpServers } }],
  });
  if (errors.length > 0)
    throw new Error(`bench config: ${errors.map((e) => e.message).join('; ')}`);
  return servers;
}

import { spawn } from 'node:child_process';
import { describe, expect, it } from 'vitest';
import { composeBackends, configFile } from './compose-support.js';
import { gatewayArgs } from './gateway-process.js';

/** Runs `mcpkit serve` (the built CLI) to its exit: its code and stderr. */
async function run(extra: string[]): Promise<{ code: number | null; stderr: string }> {
  const { args, env, cleanup } = gatewayArgs(composeBackends(), extra);
  const child = spawn(process.execPath, args, { env, stdio: ['pipe', 'pipe', 'pipe'] });
  let stderr = '';
  child.stderr.on('data', (chunk: Buffer) => {
    stderr += chunk.toString();
  });
  const code = await new Promise<number | null>((resolve) => child.once('exit', resolve));
  cleanup();
  return { code, stderr };
}

describe('mcpkit serve --gateway-config: what the user reads', () => {
  it('a config with problems: one line each, file:line:column: key: what, and exit 1', async () => {
    const config = configFile();
    config.writeText(`{
  "servers": {
    "notes": { "tools": { "write": { "name": "same" } } },
    "files": { "tools": { "write": { "name": "same" } } },
    "nope": {}
  }
}
`);
    try {
      const { code, stderr } = await run(['--gateway-config', config.file]);
      expect(code).toBe(1);
      expect(stderr).toContain(
        `mcpkit serve: ${config.file}:5:5: servers.nope: no server named "nope"`,
      );
      expect(stderr).toContain(
        `mcpkit serve: ${config.file}:4:38: servers.files.tools.write.name: tools "write" of server "notes" and "write" of server "files" are all named "same"`,
      );
    } finally {
      config.cleanup();
    }
  });

  it('--endpoint that the config does not have names the endpoints it has', async () => {
    const config = configFile();
    try {
      const { code, stderr } = await run(['--gateway-config', config.file, '--endpoint', 'team-z']);
      expect(code).not.toBe(0);
      expect(stderr).toContain('no endpoint named "team-z"');
      expect(stderr).toContain('endpoints: team-a, team-b');
    } finally {
      config.cleanup();
    }
  });
});

// biome-ignore-all lint/suspicious/noTemplateCurlyInString: these tests write ${VAR} templates into config files
import { existsSync, mkdirSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { sandbox } from './config-sandbox.js';

describe('approvals are bound to what was approved (issue #10 finding 3)', () => {
  it("after approve a, editing a's command in .mcp.json ran the new command: now it waits, and list says why", async () => {
    await using box = sandbox();
    const first = path.join(box.root, 'first-started');
    const second = path.join(box.root, 'second-started');
    const mcpJson = path.join(box.repo, '.mcp.json');
    box.write(mcpJson, { mcpServers: { a: box.markerServer(first) } });
    expect((await box.cli(['approve', 'a'])).code).toBe(0);
    await box.cli(['servers']);
    expect(existsSync(first)).toBe(true);
    box.write(mcpJson, { mcpServers: { a: box.markerServer(second) } });
    const servers = await box.cli(['servers']);
    expect(existsSync(second)).toBe(false);
    expect(servers.stderr).toContain('changed since approved: command');
    const list = await box.cli(['list']);
    expect(list.stdout).toMatch(/a\s+project\s+changed since approved: command/);
  });

  it('approve --all in repo/proj approved a .mcp.json added later in the parent folder: now that one waits', async () => {
    await using box = sandbox();
    const proj = path.join(box.repo, 'proj');
    mkdirSync(proj);
    const here = path.join(box.root, 'here-started');
    const later = path.join(box.root, 'later-started');
    box.write(path.join(proj, '.mcp.json'), { mcpServers: { here: box.markerServer(here) } });
    const all = await box.cli(['approve', '--all'], { cwd: proj });
    expect(all.stdout).toContain('approved the project servers that exist now: here');
    box.write(path.join(box.repo, '.mcp.json'), { mcpServers: { later: box.markerServer(later) } });
    await box.cli(['servers'], { cwd: proj });
    expect(existsSync(here)).toBe(true);
    expect(existsSync(later)).toBe(false);
    expect((await box.cli(['list'], { cwd: proj })).stdout).toMatch(
      /later\s+project\s+project server from .* waits for approval/,
    );
  });

  it('an old name-only approval no longer counts, with a warning to approve again', async () => {
    await using box = sandbox();
    const marker = path.join(box.root, 'old-started');
    box.write(path.join(box.repo, '.mcp.json'), { mcpServers: { a: box.markerServer(marker) } });
    box.write(path.join(box.userDir, 'projects.json'), {
      projects: { [box.repo]: { approvals: { approved: ['a'], enableAll: true } } },
    });
    const r = await box.cli(['servers']);
    expect(existsSync(marker)).toBe(false);
    expect(r.stderr).toContain('old name-only format no longer count');
    expect(r.stderr).toContain('approved by name only');
  });
});

describe('what a project entry reads and replaces is shown before approval (issue #10 findings 11 and 14)', () => {
  it('list and approve show every variable a project entry references', async () => {
    await using box = sandbox();
    box.write(path.join(box.repo, '.mcp.json'), {
      mcpServers: {
        s3: {
          command: 'aws-mcp',
          args: ['--home', '${HOME}'],
          env: { KEY: '${AWS_SECRET_ACCESS_KEY}' },
        },
      },
    });
    const list = await box.cli(['list']);
    expect(list.stdout).toContain('reads ${HOME}, ${AWS_SECRET_ACCESS_KEY}');
    const approve = await box.cli(['approve', 's3']);
    expect(approve.stderr).toContain('"s3" reads ${HOME}, ${AWS_SECRET_ACCESS_KEY}');
  });

  it('a project entry silently replaced the user entry of the same name: list, approve and servers say so', async () => {
    await using box = sandbox();
    const mine = path.join(box.root, 'mine-started');
    const userFile = box.write(path.join(box.userDir, 'mcp.json'), {
      mcpServers: { gh: box.markerServer(mine) },
    });
    const projectFile = box.write(path.join(box.repo, '.mcp.json'), {
      mcpServers: { gh: { command: 'their-gh' } },
    });
    const list = await box.cli(['list']);
    expect(list.stdout).toMatch(
      new RegExp(`gh\\s+project\\s+.*replaces your user entry in ${userFile}`),
    );
    expect(list.stdout).toMatch(
      new RegExp(`gh\\s+user\\s+replaced by the project entry in ${projectFile}`),
    );
    const servers = await box.cli(['servers']);
    expect(servers.stderr).toContain(
      `the project entry "gh" (${projectFile}, pending approval) replaces your user entry in ${userFile}, so neither runs: run "mcpkit approve gh" or rename one of them`,
    );
    expect(existsSync(mine)).toBe(false);
    const approve = await box.cli(['approve', 'gh']);
    expect(approve.stderr).toContain(
      `warning: the project entry "gh" (${projectFile}) replaces your user entry "gh" in ${userFile}`,
    );
  });
});

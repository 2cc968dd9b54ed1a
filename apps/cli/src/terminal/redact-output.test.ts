import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { Output } from './output.js';
import { historyScrubber, redactUrls } from './redact-output.js';

describe('redactUrls', () => {
  it('hides URL user info and credential query values in a message, by their place in the URL', () => {
    expect(
      redactUrls(
        'POST https://bob:hunter22@api.example/mcp?api_key=k-999&page=2. The server said: Bearer tok-12345',
      ),
    ).toBe(
      'POST https://***:***@api.example/mcp?api_key=***&page=2. The server said: Bearer tok-12345',
    );
  });

  it('leaves text without a URL as it is, whatever words it holds', () => {
    fc.assert(
      fc.property(fc.string(), (text) => {
        if (text.includes('://')) return;
        expect(redactUrls(text)).toBe(text);
      }),
    );
    expect(redactUrls('process exited with code 7: production true info')).toBe(
      'process exited with code 7: production true info',
    );
  });
});

describe('historyScrubber', () => {
  it('hides credential values of enabled entries only, and only those', () => {
    const scrub = historyScrubber([
      {
        status: 'enabled',
        config: { command: 'x', env: { API_TOKEN: 'tok-enabled-1', NODE_ENV: 'production' } },
      },
      { status: 'pending-approval', config: { command: 'y', env: { API_TOKEN: 'tok-pending-2' } } },
    ]);
    expect(scrub('call a b t=tok-enabled-1 u=tok-pending-2 mode=production')).toBe(
      'call a b t=*** u=tok-pending-2 mode=production',
    );
  });
});

describe('Output', () => {
  function output(options: { stdoutIsTTY?: boolean; sanitize?: boolean; showSecrets?: boolean }) {
    const written = { stdout: '', stderr: '' };
    const out = new Output(
      { stdout: (t) => (written.stdout += t), stderr: (t) => (written.stderr += t) },
      { stdoutIsTTY: false, sanitize: false, showSecrets: false, ...options },
    );
    return { out, written };
  }

  it('a result into a pipe is exact; on a terminal or with --sanitize it is neutralized and nothing else', () => {
    const sent = 'a\x1b[2Jb https://u:p@h.example/?token=t true\n';
    const pipe = output({});
    pipe.out.result(sent);
    expect(pipe.written.stdout).toBe(sent);
    const tty = output({ stdoutIsTTY: true });
    tty.out.result(sent);
    expect(tty.written.stdout).toBe('a\\x1b[2Jb https://u:p@h.example/?token=t true\n');
    const sanitized = output({ sanitize: true });
    sanitized.out.result('a\rb\n');
    expect(sanitized.written.stdout).toBe('a\\rb\n');
  });

  it("the CLI's own stderr is neutralized with URLs redacted; a server's stderr only neutralized", () => {
    const o = output({});
    o.out.stderr('mcpkit: \x1b]0;title\x07 GET https://u:pw@h.example/mcp?key=k → 500\n');
    expect(o.written.stderr).toBe(
      'mcpkit: \\x1b]0;title\\x07 GET https://***:***@h.example/mcp?key=*** → 500\n',
    );
    const server = output({});
    server.out.serverStderr('[s] \x1b[2J see https://u:pw@h.example/?key=k\n');
    expect(server.written.stderr).toBe('[s] \\x1b[2J see https://u:pw@h.example/?key=k\n');
    const shown = output({ showSecrets: true });
    shown.out.stderr('mcpkit: https://u:pw@h.example/\n');
    expect(shown.written.stderr).toBe('mcpkit: https://u:pw@h.example/\n');
  });

  it('stdout and --json keep what they are given (neutralized, the JSON value exact)', () => {
    const o = output({});
    const value = {
      a: 'https://u:p@h.example/?selectedSnapshot=x.png&token=t\u009b',
      true: 'true',
    };
    o.out.json(value);
    expect(JSON.parse(o.written.stdout)).toEqual(value);
    expect(o.written.stdout).not.toContain('\u009b');
    o.out.stdout('get_file_info  https://u:p@h.example/?token=t\n');
    expect(o.written.stdout).toContain('get_file_info  https://u:p@h.example/?token=t\n');
  });
});

describe('Output.link', () => {
  it('keeps a URL the user must open whole (its query included), yet neutralized', () => {
    let stderr = '';
    const out = new Output(
      { stdout: () => {}, stderr: (t) => (stderr += t) },
      { stdoutIsTTY: false, sanitize: false, showSecrets: false },
    );
    out.link('visit:\n  https://as.example/authorize?client_id=abc&state=xyz\x1b[2J\n');
    expect(stderr).toBe('visit:\n  https://as.example/authorize?client_id=abc&state=xyz\\x1b[2J\n');
  });
});

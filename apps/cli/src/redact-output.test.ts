import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { Output } from './output.js';
import { SecretScrubber } from './redact-output.js';

describe('SecretScrubber', () => {
  it('hides URL user info and query values in free text, and every known secret value', () => {
    const s = new SecretScrubber();
    s.addServers([
      {
        config: {
          type: 'http',
          url: 'https://api.example/mcp',
          headers: { Authorization: 'Bearer tok-12345' },
        },
      },
    ]);
    expect(
      s.text(
        'POST https://bob:hunter22@api.example/mcp?api_key=k-999. The server said: Bearer tok-12345',
      ),
    ).toBe('POST https://***:***@api.example/mcp?api_key=***. The server said: ***');
  });

  it('scrubs a JSON value string by string, keys included, and keeps its shape', () => {
    const s = new SecretScrubber();
    s.add(['sekrit-value']);
    expect(
      s.value({ a: ['x sekrit-value y', 1, true, null], 'sekrit-value': { b: 'ok' } }),
    ).toEqual({
      a: ['x *** y', 1, true, null],
      '***': { b: 'ok' },
    });
  });

  it('property: no secret (4+ characters, no "*") survives in the text (10,000 runs)', () => {
    const secret = fc.string({ minLength: 4, maxLength: 12 }).filter((x) => !x.includes('*'));
    fc.assert(
      fc.property(
        fc.array(secret, { minLength: 1, maxLength: 4 }),
        fc.array(fc.string()),
        (secrets, parts) => {
          const s = new SecretScrubber();
          s.add(secrets);
          const text = parts.map((p, i) => p + secrets[i % secrets.length]).join('');
          const out = s.text(text);
          for (const x of secrets) expect(out).not.toContain(x);
        },
      ),
      { numRuns: 10_000 },
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
    out.scrubber.add(['tok-secret']);
    return { out, written };
  }

  it('a result into a pipe is exact (secrets aside); on a terminal or with --sanitize it is neutralized', () => {
    const pipe = output({});
    pipe.out.result('a\x1b[2Jb tok-secret\n');
    expect(pipe.written.stdout).toBe('a\x1b[2Jb ***\n');
    const tty = output({ stdoutIsTTY: true });
    tty.out.result('a\x1b[2Jb\n');
    expect(tty.written.stdout).toBe('a\\x1b[2Jb\n');
    const sanitized = output({ sanitize: true });
    sanitized.out.result('a\rb\n');
    expect(sanitized.written.stdout).toBe('a\\rb\n');
  });

  it('stderr is always neutralized and scrubbed; --show-secrets turns scrubbing off only', () => {
    const o = output({});
    o.out.stderr('mcpkit: \x1b]0;title\x07 tok-secret\n');
    expect(o.written.stderr).toBe('mcpkit: \\x1b]0;title\\x07 ***\n');
    const shown = output({ showSecrets: true });
    shown.out.stderr('mcpkit: \x1b]0;t\x07 tok-secret\n');
    expect(shown.written.stderr).toBe('mcpkit: \\x1b]0;t\\x07 tok-secret\n');
  });

  it('a JSON document written as text stays JSON after scrubbing and neutralizing', () => {
    const o = output({});
    o.out.stdout(`${JSON.stringify({ a: 'tok-secret\u009b', true: 'true' }, null, 2)}\n`);
    expect(JSON.parse(o.written.stdout)).toEqual({ a: '***\u009b', true: 'true' });
    expect(o.written.stdout).not.toContain('\u009b');
  });
});

describe('Output.link', () => {
  it('keeps a URL the user must open whole (its query included), yet neutralized and without known secrets', () => {
    let stderr = '';
    const out = new Output(
      { stdout: () => {}, stderr: (t) => (stderr += t) },
      { stdoutIsTTY: false, sanitize: false, showSecrets: false },
    );
    out.scrubber.add(['tok-secret']);
    out.link('visit:\n  https://as.example/authorize?client_id=abc&state=xyz\x1b[2J tok-secret\n');
    expect(stderr).toBe(
      'visit:\n  https://as.example/authorize?client_id=abc&state=xyz\\x1b[2J ***\n',
    );
  });
});

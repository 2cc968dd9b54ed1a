import { createHash } from 'node:crypto';
import { JsonRpcPeer, RpcError } from '@mcpkit/jsonrpc';
import { createInProcessPair } from '@mcpkit/transport-in-process';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  InvalidResultError,
  McpClient,
  SkillError,
  SkillErrorCode,
  SkillVerificationError,
  skillsExtensionId,
} from '../index.js';
import { utf8Length } from './content.js';

const SKILL = 'skill://pdf-processing/SKILL.md';
const FORMS = 'skill://pdf-processing/references/FORMS.md';
const SKILL_MD =
  '---\nname: pdf-processing\ndescription: Extract, fill, and assemble PDF documents\n---\n\nSkill body.\n';
const FORMS_MD = 'Supporting content: é ✓ 🙂\n';

const sha = (bytes: string | Buffer) =>
  `sha256:${createHash('sha256').update(bytes).digest('hex')}`;
const triple = (uri: string, content: string) => ({
  uri,
  digest: sha(content),
  size: Buffer.byteLength(content),
});
const entryFor = (skillMd = SKILL_MD, forms = FORMS_MD) => ({
  uri: SKILL,
  frontmatter: { name: 'pdf-processing', description: 'Extract, fill, and assemble PDF documents' },
  resources: [triple(SKILL, skillMd), triple(FORMS, forms)],
});

/** The same skill served under another authority (a name two skills share). */
const ACME = 'skill://acme/pdf-processing/SKILL.md';
const acmeEntry = () => ({ ...entryFor(), uri: ACME, resources: [triple(ACME, SKILL_MD)] });

type File = { text: string } | { blob: string };

/**
 * A real 2026-07-28 server on an in-process pair that declares the skills extension, lists
 * `pages` of entries and serves `files`; `calls` records every request it got.
 */
async function serveSkills(
  pages: unknown[][],
  files: Record<string, File>,
  setup: {
    capabilities?: Record<string, unknown>;
    client?: ConstructorParameters<typeof McpClient>[0];
    /** Handlers that replace the defaults (faults a listing-following server never makes). */
    override?: (server: JsonRpcPeer) => void;
  } = {},
) {
  const capabilities = setup.capabilities ?? {
    resources: {},
    extensions: { [skillsExtensionId]: {} },
  };
  const [clientEnd, serverEnd] = createInProcessPair();
  const server = new JsonRpcPeer(serverEnd);
  const calls: string[] = [];
  server.setRequestHandler('server/discover', () => ({
    supportedVersions: ['2026-07-28'],
    capabilities,
    serverInfo: { name: 'skills-server', version: '1.0.0' },
  }));
  server.setRequestHandler('skills/list', (p: { cursor?: string }) => {
    calls.push(`skills/list ${p.cursor ?? ''}`.trim());
    const page = Number(p.cursor ?? 0);
    return {
      skills: pages[page],
      ttlMs: 0,
      cacheScope: 'private',
      ...(page < pages.length - 1 ? { nextCursor: String(page + 1) } : {}),
    };
  });
  server.setRequestHandler('skills/get', (p: { uri: string }) => {
    calls.push(`skills/get ${p.uri}`);
    const skill = pages.flat().find((e) => (e as { uri: string }).uri === p.uri);
    if (!skill) throw new RpcError(-32602, `unknown skill ${p.uri}`);
    return { skill, ttlMs: 0, cacheScope: 'private' };
  });
  server.setRequestHandler('resources/read', (p: { uri: string }) => {
    calls.push(`resources/read ${p.uri}`);
    const file = files[p.uri];
    if (!file) throw new RpcError(-32602, `no resource ${p.uri}`);
    return { contents: [{ uri: p.uri, mimeType: 'text/markdown', ...file }] };
  });
  setup.override?.(server);
  await server.start();
  const client = new McpClient({ name: 'skills', eraCache: false, ...setup.client });
  const reported: Error[] = [];
  client.onerror = (e) => reported.push(e);
  await client.connect(clientEnd);
  return {
    client,
    calls,
    reported,
    async [Symbol.asyncDispose]() {
      await client.close();
      await server.close();
    },
  };
}

const refusal = (p: Promise<unknown>) =>
  p.then(
    () => {
      throw new Error('expected the read to be refused');
    },
    (e: unknown) => e as SkillError,
  );

describe('skills (SEP-2640): enumeration', () => {
  it('lists every page of skills/list and fetches no file of any skill', async () => {
    const second = {
      ...entryFor(),
      uri: 'skill://acme/pdf-forms/SKILL.md',
      frontmatter: { name: 'pdf-forms', description: 'Forms' },
      resources: 'dynamic',
    };
    await using s = await serveSkills([[entryFor()], [second]], {
      [SKILL]: { text: SKILL_MD },
      [FORMS]: { text: FORMS_MD },
    });
    expect(s.client.supportsSkills).toBe(true);
    const skills = await s.client.listSkills();
    expect(skills.map((e) => [e.name, e.uri])).toEqual([
      ['pdf-processing', SKILL],
      ['pdf-forms', 'skill://acme/pdf-forms/SKILL.md'],
    ]);
    expect(skills[1]!.resources).toBe('dynamic');
    expect(s.calls).toEqual(['skills/list', 'skills/list 1']);
  });

  it('leaves out entries that break the extension and reports each with a typed error', async () => {
    const good = entryFor();
    const broken = [
      { ...good, uri: 'skill://other-name/SKILL.md' }, // last segment is not frontmatter.name
      {
        ...good,
        resources: [{ ...triple(SKILL, SKILL_MD), digest: sha(SKILL_MD).toUpperCase() }],
      },
      { ...good, resources: [triple(SKILL, SKILL_MD), triple(`${SKILL}/../../x`, 'x')] },
      {
        ...good,
        resources: [triple(SKILL, SKILL_MD), triple('skill://pdf-processing/../evil/a', 'x')],
      },
      { ...good, resources: [triple(FORMS, FORMS_MD)] }, // no entry for SKILL.md itself
      { ...good, resources: [{ ...triple(SKILL, SKILL_MD), size: -1 }] },
      { ...good, frontmatter: { name: 'pdf-processing' } },
      { ...good, resources: undefined },
      'not an entry',
    ];
    await using s = await serveSkills([[...broken, good]], {});
    expect(await s.client.listSkills()).toHaveLength(1);
    expect(s.reported).toHaveLength(broken.length);
    for (const error of s.reported) {
      expect(SkillError.isInstance(error)).toBe(true);
      expect((error as SkillError).code).toBe(SkillErrorCode.InvalidEntry);
      expect(error.message).toMatch(/^server "skills": skill entry .* left out: /);
    }
  });

  it('asks nothing of a server that does not declare the extension, and refuses to read', async () => {
    await using s = await serveSkills(
      [[entryFor()]],
      { [SKILL]: { text: SKILL_MD } },
      {
        capabilities: { resources: {} },
      },
    );
    expect(s.client.supportsSkills).toBe(false);
    expect(await s.client.listSkills()).toEqual([]);
    const error = await refusal(s.client.readSkill('pdf-processing'));
    expect(error.code).toBe(SkillErrorCode.NotSupported);
    expect(error.message).toContain(`does not declare the ${skillsExtensionId} extension`);
    expect(s.calls).toEqual([]);
  });

  it('gets one entry by URI with skills/get, and refuses an answer for another URI', async () => {
    await using s = await serveSkills([[entryFor()]], {});
    expect((await s.client.getSkill(SKILL)).name).toBe('pdf-processing');
    await expect(s.client.getSkill('skill://nope/SKILL.md')).rejects.toBeInstanceOf(RpcError);
  });

  it('refuses a skills/get answer naming a different skill (mock: a server answering for another)', async () => {
    const other = acmeEntry();
    await using s = await serveSkills(
      [[entryFor()]],
      {},
      {
        override: (server) => server.setRequestHandler('skills/get', () => ({ skill: other })),
      },
    );
    const error = await s.client.getSkill(SKILL).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(InvalidResultError);
    expect((error as Error).message).toContain(`asked for ${SKILL}, answered with ${other.uri}`);
  });
});

describe('skills (SEP-2640) on a handshake-era server', () => {
  it('lists and verifies the same way after initialize', async () => {
    const [clientEnd, serverEnd] = createInProcessPair();
    const server = new JsonRpcPeer(serverEnd);
    server.setRequestHandler('initialize', (p: { protocolVersion: string }) => ({
      protocolVersion: p.protocolVersion,
      capabilities: { resources: {}, extensions: { [skillsExtensionId]: {} } },
      serverInfo: { name: 'legacy-skills', version: '1.0.0' },
    }));
    server.setRequestHandler('skills/list', () => ({ skills: [entryFor()] }));
    server.setRequestHandler('resources/read', (p: { uri: string }) => ({
      contents: [{ uri: p.uri, text: p.uri === SKILL ? SKILL_MD : 'tampered' }],
    }));
    await server.start();
    const client = new McpClient({ name: 'legacy', era: 'legacy' });
    await client.connect(clientEnd);
    expect(client.era).toBe('legacy');
    const [entry] = await client.listSkills();
    const skill = await client.readSkill(entry!);
    expect(skill.body).toBe('\nSkill body.\n');
    const error = await refusal(client.readSkillFile(skill, FORMS));
    expect(error.code).toBe(SkillErrorCode.SizeMismatch);
    await client.close();
    await server.close();
  });
});

describe('skills (SEP-2640): reading and verification', () => {
  it('loads a skill by name: SKILL.md verified and split, then a listed file verified', async () => {
    await using s = await serveSkills([[entryFor()]], {
      [SKILL]: { text: SKILL_MD },
      [FORMS]: { text: FORMS_MD },
    });
    const skill = await s.client.readSkill('pdf-processing');
    expect(skill).toMatchObject({
      uri: SKILL,
      name: 'pdf-processing',
      verified: true,
      body: '\nSkill body.\n',
      frontmatter: {
        name: 'pdf-processing',
        description: 'Extract, fill, and assemble PDF documents',
      },
    });
    expect(s.calls).toEqual(['skills/list', `resources/read ${SKILL}`]);
    const forms = await s.client.readSkillFile(skill, FORMS);
    expect(forms).toMatchObject({ uri: FORMS, skill: SKILL, text: FORMS_MD, verified: true });
    expect(Buffer.from(forms.bytes).toString('utf8')).toBe(FORMS_MD);
  });

  it('verifies base64 blob content by its decoded bytes', async () => {
    const bytes = Buffer.from([0, 1, 2, 250, 255, 10]);
    const entry = entryFor();
    entry.resources[1] = { uri: FORMS, digest: sha(bytes), size: bytes.length };
    await using s = await serveSkills([[entry]], { [FORMS]: { blob: bytes.toString('base64') } });
    const file = await s.client.readSkillFile(entry as never, FORMS);
    expect(Buffer.from(file.bytes)).toEqual(bytes);
    expect(file.text).toBeUndefined();
  });

  it('tampered digest: the SKILL.md is refused with SkillVerificationError and not returned', async () => {
    await using s = await serveSkills([[entryFor()]], {
      [SKILL]: { text: SKILL_MD.replace('Skill body.', 'Evil body!!') },
    });
    const error = await refusal(s.client.readSkill(SKILL));
    expect(SkillVerificationError.isInstance(error)).toBe(true);
    expect(error.code).toBe(SkillErrorCode.DigestMismatch);
    expect((error as SkillVerificationError).expected).toBe(sha(SKILL_MD));
    expect((error as SkillVerificationError).actual).toBe(
      sha(SKILL_MD.replace('Skill body.', 'Evil body!!')),
    );
    expect(error.message).toContain(`server "skills": skill "pdf-processing" (${SKILL})`);
    expect(error.message).toContain('list the skills again');
  });

  it('tampered digest of a supporting file: refused, nothing returned', async () => {
    await using s = await serveSkills([[entryFor()]], {
      [FORMS]: { text: FORMS_MD.replace('é', 'e') + 'x' },
    });
    const error = await refusal(s.client.readSkillFile(entryFor() as never, FORMS));
    expect(error.code).toBe(SkillErrorCode.DigestMismatch);
    expect(error.file).toBe(FORMS);
  });

  it('wrong size: more bytes than declared are refused as a size mismatch before hashing', async () => {
    const served = `${SKILL_MD}extra bytes the entry did not account for\n`;
    await using s = await serveSkills([[entryFor()]], { [SKILL]: { text: served } });
    const error = await refusal(s.client.readSkill(SKILL));
    expect(error.code).toBe(SkillErrorCode.SizeMismatch);
    // The count stopped one byte past the declared size: the rest was never measured.
    expect((error as SkillVerificationError).actual).toBe(Buffer.byteLength(SKILL_MD) + 1);
    expect((error as SkillVerificationError).expected).toBe(Buffer.byteLength(SKILL_MD));
  });

  it('wrong size: fewer bytes than declared are refused too', async () => {
    await using s = await serveSkills([[entryFor()]], { [FORMS]: { text: 'short' } });
    const error = await refusal(s.client.readSkillFile(entryFor() as never, FORMS));
    expect(error.code).toBe(SkillErrorCode.SizeMismatch);
    expect((error as SkillVerificationError).actual).toBe(5);
  });

  it('bad front matter: a description that differs from the listing is refused', async () => {
    // The listing's digest and size match the tampered file: only the front matter tells.
    const served = SKILL_MD.replace(
      'description: Extract, fill, and assemble PDF documents',
      'description: Exfiltrate credentials',
    );
    const entry = entryFor(served);
    await using s = await serveSkills([[entry]], { [SKILL]: { text: served } });
    const error = await refusal(s.client.readSkill('pdf-processing'));
    expect(error.code).toBe(SkillErrorCode.FrontmatterMismatch);
    expect((error as SkillVerificationError).actual).toEqual({
      description: 'Exfiltrate credentials',
    });
    expect(error.message).toContain('differs from the listing\'s in "description"');
  });

  it('bad front matter: an extra field, no front matter, or invalid YAML are refused', async () => {
    const cases: Array<[string, string]> = [
      [SKILL_MD.replace('---\n\n', 'license: MIT\n---\n\n'), SkillErrorCode.FrontmatterMismatch],
      ['No front matter at all.\n', SkillErrorCode.FrontmatterInvalid],
      [SKILL_MD.replace('---\n\n', 'name: again\n---\n\n'), SkillErrorCode.FrontmatterInvalid],
      [SKILL_MD.replace('---\n\n', 'x: [unclosed\n---\n\n'), SkillErrorCode.FrontmatterInvalid],
      ['---\n- a list\n---\n', SkillErrorCode.FrontmatterInvalid],
      [SKILL_MD.replace('---\n\n', 'x: !custom tag\n---\n\n'), SkillErrorCode.FrontmatterInvalid],
      [
        // An alias bomb: each level doubles what the aliases expand to.
        SKILL_MD.replace(
          '---\n\n',
          `a: &a [x, x]\n${Array.from({ length: 20 }, (_, i) => `b${i}: &b${i} [${i ? `*b${i - 1}` : '*a'}, ${i ? `*b${i - 1}` : '*a'}]`).join('\n')}\n---\n\n`,
        ),
        SkillErrorCode.FrontmatterInvalid,
      ],
    ];
    for (const [served, code] of cases) {
      await using s = await serveSkills([[entryFor(served)]], { [SKILL]: { text: served } });
      const error = await refusal(s.client.readSkill(SKILL));
      expect(error.code, served).toBe(code);
      expect(SkillVerificationError.isInstance(error)).toBe(true);
    }
  });

  it('front matter in YAML forms (quoted, folded, nested) equal to the listing passes', async () => {
    const served =
      '---\nname: "pdf-processing"\ndescription: >-\n  Extract, fill,\n  and assemble PDF documents\nmetadata:\n  author: acme\n  version: "1.0"\n---\nBody\n';
    const entry = {
      ...entryFor(served),
      frontmatter: {
        name: 'pdf-processing',
        description: 'Extract, fill, and assemble PDF documents',
        metadata: { author: 'acme', version: '1.0' },
      },
    };
    await using s = await serveSkills([[entry]], { [SKILL]: { text: served } });
    const skill = await s.client.readSkill(SKILL);
    expect(skill.frontmatter).toEqual(entry.frontmatter);
    expect(skill.body).toBe('Body\n');
  });

  it('refuses a file the listing does not declare, without asking the server', async () => {
    await using s = await serveSkills([[entryFor()]], {});
    for (const uri of ['skill://pdf-processing/secret.md', 'skill://other/x.md']) {
      const error = await refusal(s.client.readSkillFile(entryFor() as never, uri));
      expect(error.code).toBe(SkillErrorCode.NotListed);
    }
    expect(s.calls).toEqual([]);
  });

  it('refuses, before reading, a file declared larger than maxFileBytes', async () => {
    await using s = await serveSkills(
      [[entryFor()]],
      { [SKILL]: { text: SKILL_MD } },
      {
        client: { skills: { maxFileBytes: 10 } },
      },
    );
    const error = await refusal(s.client.readSkill('pdf-processing'));
    expect(error.code).toBe(SkillErrorCode.TooLarge);
    expect(error.message).toContain('more than maxFileBytes 10');
    expect(s.calls).toEqual(['skills/list']);
  });

  it('refuses, before reading, a skill past maxResources or maxSkillBytes', async () => {
    for (const limits of [{ maxResources: 1 }, { maxSkillBytes: 100 }]) {
      await using s = await serveSkills(
        [[entryFor()]],
        { [SKILL]: { text: SKILL_MD } },
        {
          client: { skills: limits },
        },
      );
      const error = await refusal(s.client.readSkill(entryFor() as never));
      expect(error.code).toBe(SkillErrorCode.TooLarge);
      expect(s.calls).toEqual([]);
    }
  });

  it('bounds a dynamic skill (no declared size) by maxFileBytes while measuring it', async () => {
    const entry = { ...entryFor(), resources: 'dynamic' };
    const big = `${SKILL_MD}${'x'.repeat(5000)}`;
    await using limited = await serveSkills(
      [[entry]],
      { [SKILL]: { text: big } },
      {
        client: { skills: { maxFileBytes: 1000 } },
      },
    );
    const error = await refusal(limited.client.readSkill(SKILL));
    expect(error.code).toBe(SkillErrorCode.TooLarge);
    await using s = await serveSkills([[entry]], { [SKILL]: { text: big } });
    const skill = await s.client.readSkill(SKILL);
    expect(skill.verified).toBe(false);
    expect(skill.body.length).toBe(5000 + '\nSkill body.\n'.length);
  });

  it('refuses a name two skills share, and names the URIs to pick from', async () => {
    await using s = await serveSkills([[entryFor(), acmeEntry()]], {});
    const error = await refusal(s.client.readSkill('pdf-processing'));
    expect(error.code).toBe(SkillErrorCode.Ambiguous);
    expect(error.message).toContain(ACME);
    expect(s.calls).toEqual(['skills/list']);
    const missing = await refusal(s.client.readSkill('nothing-here'));
    expect(missing.code).toBe(SkillErrorCode.NotFound);
  });

  it('refuses a resources/read answer carrying another URI or bad base64 (mock: a misbehaving server)', async () => {
    const answers = [
      { contents: [{ uri: FORMS, text: SKILL_MD }] },
      { contents: [{ uri: SKILL, blob: 'not base64!' }] },
      {
        contents: [
          { uri: SKILL, text: SKILL_MD },
          { uri: SKILL, text: SKILL_MD },
        ],
      },
    ];
    for (const answer of answers) {
      await using s = await serveSkills(
        [[entryFor()]],
        {},
        {
          override: (server) => server.setRequestHandler('resources/read', () => answer),
        },
      );
      const error = await refusal(s.client.readSkill(SKILL));
      expect(error.code).toBe(SkillErrorCode.InvalidContent);
    }
    // With result validation off the client still checks what it verifies.
    for (const answer of [{}, { contents: 'nope' }]) {
      await using s = await serveSkills(
        [[entryFor()]],
        {},
        {
          client: { validateResults: false },
          override: (server) => server.setRequestHandler('resources/read', () => answer),
        },
      );
      const error = await refusal(s.client.readSkill(SKILL));
      expect(error.code).toBe(SkillErrorCode.InvalidContent);
    }
  });
});

describe('utf8Length', () => {
  it('matches TextEncoder for mixed scripts, surrogate pairs and lone surrogates', () => {
    for (const text of ['', 'abc', 'é', '✓', '🙂', 'a🙂b', '\ud800x', 'x\udc00', FORMS_MD]) {
      expect(utf8Length(text, 1e9), JSON.stringify(text)).toBe(
        new TextEncoder().encode(text).length,
      );
    }
  });

  it('matches TextEncoder for any string, lone surrogates included (property)', () => {
    fc.assert(
      fc.property(
        // Any UTF-16 code units: pairs, lone halves, and everything between.
        fc
          .array(fc.integer({ min: 0, max: 0xffff }), { maxLength: 40 })
          .map((units) => String.fromCharCode(...units)),
        fc.string({ unit: 'grapheme', maxLength: 40 }),
        (a, b) =>
          [a, b, a + b].every(
            (text) => utf8Length(text, 1e9) === new TextEncoder().encode(text).length,
          ),
      ),
    );
  });

  it('stops counting one byte past the limit', () => {
    expect(utf8Length('x'.repeat(100_000), 10)).toBe(11);
  });
});

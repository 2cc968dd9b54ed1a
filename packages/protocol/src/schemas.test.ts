import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import * as v from './index.js';
import * as s from './schemas.js';

const p = { ...v, ...s };

// The official schema.json of every revision is kept in the repository as test data
// (tests/fixtures/mcp-schema, with its source noted there); a missing file fails the run.
const specDir = fileURLToPath(new URL('../../../tests/fixtures/mcp-schema/', import.meta.url));
type Def = { required?: string[]; properties?: Record<string, unknown> };

function officialDefs(version: string): Record<string, Def> {
  const schema = JSON.parse(readFileSync(`${specDir}${version}/schema.json`, 'utf8'));
  return schema.definitions ?? schema.$defs;
}

function ours(schema: z.ZodType): { required: string[]; properties: string[] } {
  const json = z.toJSONSchema(schema, { io: 'input', unrepresentable: 'any' }) as Def;
  return { required: json.required ?? [], properties: Object.keys(json.properties ?? {}) };
}

/** Official definition name → our schema. */
const pairs: Record<string, z.ZodType> = {
  Implementation: p.ImplementationSchema,
  Icon: p.IconSchema,
  Annotations: p.AnnotationsSchema,
  TextContent: p.TextContentSchema,
  ImageContent: p.ImageContentSchema,
  AudioContent: p.AudioContentSchema,
  EmbeddedResource: p.EmbeddedResourceSchema,
  ResourceLink: p.ResourceLinkSchema,
  TextResourceContents: p.TextResourceContentsSchema,
  BlobResourceContents: p.BlobResourceContentsSchema,
  ClientCapabilities: p.ClientCapabilitiesSchema,
  ServerCapabilities: p.ServerCapabilitiesSchema,
  InitializeResult: p.InitializeResultSchema,
  Tool: p.ToolSchema,
  ToolAnnotations: p.ToolAnnotationsSchema,
  ListToolsResult: p.ListToolsResultSchema,
  CallToolResult: p.CallToolResultSchema,
  Resource: p.ResourceSchema,
  ResourceTemplate: p.ResourceTemplateSchema,
  ListResourcesResult: p.ListResourcesResultSchema,
  ListResourceTemplatesResult: p.ListResourceTemplatesResultSchema,
  ReadResourceResult: p.ReadResourceResultSchema,
  Prompt: p.PromptSchema,
  PromptArgument: p.PromptArgumentSchema,
  PromptMessage: p.PromptMessageSchema,
  ListPromptsResult: p.ListPromptsResultSchema,
  GetPromptResult: p.GetPromptResultSchema,
  CompleteResult: p.CompleteResultSchema,
  Root: p.RootSchema,
  ListRootsResult: p.ListRootsResultSchema,
  SamplingMessage: p.SamplingMessageSchema,
  CreateMessageResult: p.CreateMessageResultSchema,
  CreateMessageRequestParams: p.CreateMessageRequestParamsSchema,
  ModelPreferences: p.ModelPreferencesSchema,
  ElicitResult: p.ElicitResultSchema,
  ToolUseContent: p.ToolUseContentSchema,
  ToolResultContent: p.ToolResultContentSchema,
  Task: p.TaskSchema,
  CreateTaskResult: p.CreateTaskResultSchema,
  ListTasksResult: p.ListTasksResultSchema,
  DiscoverResult: p.DiscoverResultSchema,
  InputRequiredResult: p.InputRequiredResultSchema,
  SubscriptionFilter: p.SubscriptionFilterSchema,
};

/**
 * 2026-07-28 requires these on results; we accept results without them, because the
 * revision itself tells clients to read a missing `resultType` as "complete" and the same
 * schemas parse older servers' results.
 */
const lenientModern = ['resultType', 'ttlMs', 'cacheScope'];

/** Deliberate leniencies, each with its reason. */
const lenient: Record<string, string[]> = {
  // Tolerate servers that send only structuredContent; we fill in [].
  CallToolResult: ['content'],
};

describe('schemas agree with the official JSON Schema of every revision', () => {
  for (const version of p.PROTOCOL_VERSIONS) {
    describe(version, () => {
      const defs = officialDefs(version);
      for (const [name, schema] of Object.entries(pairs)) {
        const def = defs[name];
        if (!def?.properties) continue;
        it(`${name}: we require nothing the spec does not`, () => {
          const official = new Set(def.required ?? []);
          expect(ours(schema).required.filter((r) => !official.has(r))).toEqual([]);
        });
        if (version === p.LATEST_LEGACY_VERSION || version === p.LATEST_PROTOCOL_VERSION) {
          it(`${name}: we require everything the spec does and know every property`, () => {
            const mine = ours(schema);
            const missing = (def.required ?? []).filter(
              (r) =>
                !mine.required.includes(r) &&
                !(lenient[name] ?? []).includes(r) &&
                !(version === p.LATEST_PROTOCOL_VERSION && lenientModern.includes(r)),
            );
            expect(missing).toEqual([]);
            const unknown = Object.keys(def.properties ?? {}).filter(
              (k) => !mine.properties.includes(k) && !['task'].includes(k),
            );
            expect(unknown).toEqual([]);
          });
        }
      }
    });
  }
});

describe('parsing', () => {
  it('keeps unknown fields from newer revisions', () => {
    const tool = p.ToolSchema.parse({ name: 't', inputSchema: { type: 'object' }, futureField: 1 });
    expect((tool as Record<string, unknown>).futureField).toBe(1);
  });

  it('accepts every content block kind and rejects an unknown kind', () => {
    const result = p.CallToolResultSchema.parse({
      content: [
        { type: 'text', text: 'a' },
        { type: 'image', data: 'AA==', mimeType: 'image/png' },
        { type: 'audio', data: 'AA==', mimeType: 'audio/wav' },
        { type: 'resource_link', uri: 'file:///x', name: 'x' },
        { type: 'resource', resource: { uri: 'file:///y', text: 'y' } },
      ],
    });
    expect(result.content).toHaveLength(5);
    expect(() => p.CallToolResultSchema.parse({ content: [{ type: 'hologram' }] })).toThrow();
  });

  it('version helpers', () => {
    expect(p.eraOf('2026-07-28')).toBe('modern');
    expect(p.eraOf('2024-11-05')).toBe('legacy');
    expect(p.supports('2025-06-18', 'structuredContent')).toBe(true);
    expect(p.supports('2025-03-26', 'structuredContent')).toBe(false);
    expect(p.isLegacyVersion('2026-07-28')).toBe(false);
  });
});

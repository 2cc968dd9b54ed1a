import { z } from 'zod';
import { AnnotationsSchema, IconSchema, MetaSchema } from './base.js';

export const TextResourceContentsSchema = z.looseObject({
  uri: z.string(),
  mimeType: z.string().optional(),
  text: z.string(),
  _meta: MetaSchema.optional(),
});

export const BlobResourceContentsSchema = z.looseObject({
  uri: z.string(),
  mimeType: z.string().optional(),
  blob: z.string(),
  _meta: MetaSchema.optional(),
});

export const ResourceContentsSchema = z.union([
  TextResourceContentsSchema,
  BlobResourceContentsSchema,
]);

export const TextContentSchema = z.looseObject({
  type: z.literal('text'),
  text: z.string(),
  annotations: AnnotationsSchema.optional(),
  _meta: MetaSchema.optional(),
});

export const ImageContentSchema = z.looseObject({
  type: z.literal('image'),
  data: z.string(),
  mimeType: z.string(),
  annotations: AnnotationsSchema.optional(),
  _meta: MetaSchema.optional(),
});

/** Since 2025-03-26. */
export const AudioContentSchema = z.looseObject({
  type: z.literal('audio'),
  data: z.string(),
  mimeType: z.string(),
  annotations: AnnotationsSchema.optional(),
  _meta: MetaSchema.optional(),
});

export const EmbeddedResourceSchema = z.looseObject({
  type: z.literal('resource'),
  resource: ResourceContentsSchema,
  annotations: AnnotationsSchema.optional(),
  _meta: MetaSchema.optional(),
});

/** What describes a resource or a resource template, besides its `uri`/`uriTemplate`. */
export const resourceDescriptionShape = {
  name: z.string(),
  title: z.string().optional(),
  description: z.string().optional(),
  mimeType: z.string().optional(),
  annotations: AnnotationsSchema.optional(),
  icons: z.array(IconSchema).optional(),
  _meta: MetaSchema.optional(),
};

/** Since 2025-06-18: a resource, by reference. */
export const ResourceLinkSchema = z.looseObject({
  type: z.literal('resource_link'),
  uri: z.string(),
  size: z.number().optional(),
  ...resourceDescriptionShape,
});

export const ContentBlockSchema = z.discriminatedUnion('type', [
  TextContentSchema,
  ImageContentSchema,
  AudioContentSchema,
  ResourceLinkSchema,
  EmbeddedResourceSchema,
]);

export type TextContent = z.infer<typeof TextContentSchema>;
export type ImageContent = z.infer<typeof ImageContentSchema>;
export type AudioContent = z.infer<typeof AudioContentSchema>;
export type EmbeddedResource = z.infer<typeof EmbeddedResourceSchema>;
export type ResourceLink = z.infer<typeof ResourceLinkSchema>;
export type ContentBlock = z.infer<typeof ContentBlockSchema>;
export type ResourceContents = z.infer<typeof ResourceContentsSchema>;
export type TextResourceContents = z.infer<typeof TextResourceContentsSchema>;
export type BlobResourceContents = z.infer<typeof BlobResourceContentsSchema>;

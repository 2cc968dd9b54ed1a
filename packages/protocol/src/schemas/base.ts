import { z } from 'zod';

/**
 * Shared building blocks. Objects are loose (unknown keys kept): a client must accept
 * fields from revisions newer than the ones it knows.
 */

export const MetaSchema = z.record(z.string(), z.unknown());
export const ProgressTokenSchema = z.union([z.string(), z.number()]);
export const CursorSchema = z.string();
export const RoleSchema = z.enum(['user', 'assistant']);

export const IconSchema = z.looseObject({
  src: z.string(),
  mimeType: z.string().optional(),
  sizes: z.array(z.string()).optional(),
  theme: z.enum(['light', 'dark']).optional(),
});

export const ImplementationSchema = z.looseObject({
  name: z.string(),
  title: z.string().optional(),
  version: z.string(),
  description: z.string().optional(),
  websiteUrl: z.string().optional(),
  icons: z.array(IconSchema).optional(),
});

/** `resultType` is 2026-07-28's; a result without it is `"complete"`. */
export const ResultSchema = z.looseObject({
  _meta: MetaSchema.optional(),
  resultType: z.string().optional(),
});
export const EmptyResultSchema = ResultSchema;

/** 2026-07-28 cache hints of list and read results (`CacheableResult`). */
export const CacheHintShape = {
  ttlMs: z.number().optional(),
  cacheScope: z.enum(['public', 'private']).optional(),
};

export const PaginatedResultSchema = ResultSchema.extend({
  nextCursor: CursorSchema.optional(),
  ...CacheHintShape,
});

export const AnnotationsSchema = z.looseObject({
  audience: z.array(RoleSchema).optional(),
  priority: z.number().optional(),
  lastModified: z.string().optional(),
});

export const LoggingLevelSchema = z.enum([
  'debug',
  'info',
  'notice',
  'warning',
  'error',
  'critical',
  'alert',
  'emergency',
]);

export type Implementation = z.infer<typeof ImplementationSchema>;
export type Icon = z.infer<typeof IconSchema>;
export type Annotations = z.infer<typeof AnnotationsSchema>;
export type LoggingLevel = z.infer<typeof LoggingLevelSchema>;
export type Role = z.infer<typeof RoleSchema>;

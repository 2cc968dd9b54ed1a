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

export const ResultSchema = z.looseObject({ _meta: MetaSchema.optional() });
export const EmptyResultSchema = ResultSchema;

export const PaginatedResultSchema = ResultSchema.extend({ nextCursor: CursorSchema.optional() });

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

import { z } from 'zod';
import { CacheHintShape, MetaSchema, ResultSchema } from './base.js';
import { ServerCapabilitiesSchema } from './capabilities.js';

/** 2026-07-28: the answer to `server/discover`. */
export const DiscoverResultSchema = ResultSchema.extend({
  supportedVersions: z.array(z.string()),
  capabilities: ServerCapabilitiesSchema,
  instructions: z.string().optional(),
  ...CacheHintShape,
});

/** One server-to-client request carried inside an `InputRequiredResult`. */
export const InputRequestSchema = z.looseObject({
  method: z.string(),
  params: z.record(z.string(), z.unknown()).optional(),
});

/** 2026-07-28 multi round-trip requests: the server needs input before it can finish. */
export const InputRequiredResultSchema = ResultSchema.extend({
  resultType: z.literal('input_required'),
  inputRequests: z.record(z.string(), InputRequestSchema).optional(),
  requestState: z.string().optional(),
});

/** What a `subscriptions/listen` stream opts in to. */
export const SubscriptionFilterSchema = z.looseObject({
  toolsListChanged: z.boolean().optional(),
  promptsListChanged: z.boolean().optional(),
  resourcesListChanged: z.boolean().optional(),
  resourceSubscriptions: z.array(z.string()).optional(),
});

export const SubscriptionsAcknowledgedParamsSchema = z.looseObject({
  _meta: MetaSchema.optional(),
  notifications: SubscriptionFilterSchema,
});

export type DiscoverResult = z.infer<typeof DiscoverResultSchema>;
export type InputRequest = z.infer<typeof InputRequestSchema>;
export type InputRequiredResult = z.infer<typeof InputRequiredResultSchema>;
export type SubscriptionFilter = z.infer<typeof SubscriptionFilterSchema>;

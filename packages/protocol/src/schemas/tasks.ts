import { z } from 'zod';
import { MetaSchema, PaginatedResultSchema, ResultSchema } from './base.js';

/** Tasks, since 2025-11-25. */
export const TaskStatusSchema = z.enum([
  'working',
  'input_required',
  'completed',
  'failed',
  'cancelled',
]);

export const TaskSchema = z.looseObject({
  taskId: z.string(),
  status: TaskStatusSchema,
  statusMessage: z.string().optional(),
  createdAt: z.string(),
  lastUpdatedAt: z.string(),
  ttl: z.number().nullable(),
  pollInterval: z.number().optional(),
  _meta: MetaSchema.optional(),
});

export const CreateTaskResultSchema = ResultSchema.extend({ task: TaskSchema });
export const GetTaskResultSchema = ResultSchema.extend(TaskSchema.shape);
export const ListTasksResultSchema = PaginatedResultSchema.extend({ tasks: z.array(TaskSchema) });

export type Task = z.infer<typeof TaskSchema>;
export type TaskStatus = z.infer<typeof TaskStatusSchema>;

/** A plain JSON object (not an array, not null): the shape every message and result starts from. */
export const isRecord = (v: unknown): v is Record<string, unknown> =>
  typeof v === 'object' && v !== null && !Array.isArray(v);

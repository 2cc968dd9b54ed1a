export const TRUNCATED = '… [truncated]';

/** `text` cut at `max` characters plus an explicit marker, or unchanged. */
export function cut(text: string, max: number): string {
  return text.length <= max ? text : `${text.slice(0, max)}${TRUNCATED}`;
}

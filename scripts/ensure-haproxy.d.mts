export function ensureHaproxy(): string | undefined;

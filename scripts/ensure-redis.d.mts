export function ensureRedis(): string | undefined;

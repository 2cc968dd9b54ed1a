import { ServerUnavailableError } from './errors.js';

/** Waits for `task`, but no longer than the caller's own budget or signal. */
export async function waitFor(
  task: Promise<void>,
  server: string,
  options: { signal?: AbortSignal; timeoutMs?: number },
): Promise<void> {
  const { signal, timeoutMs } = options;
  signal?.throwIfAborted();
  if (!signal && !(timeoutMs && Number.isFinite(timeoutMs))) return task;
  let timer: NodeJS.Timeout | undefined;
  let onAbort: (() => void) | undefined;
  try {
    await Promise.race([
      task,
      new Promise<never>((_, reject) => {
        if (timeoutMs && Number.isFinite(timeoutMs))
          timer = setTimeout(
            () =>
              reject(
                new ServerUnavailableError(
                  server,
                  'reconnecting',
                  `did not reconnect within the call's ${timeoutMs} ms; it is retried automatically`,
                ),
              ),
            timeoutMs,
          );
        onAbort = () => reject(signal!.reason);
        signal?.addEventListener('abort', onAbort, { once: true });
      }),
    ]);
  } finally {
    clearTimeout(timer);
    if (onAbort) signal?.removeEventListener('abort', onAbort);
  }
}

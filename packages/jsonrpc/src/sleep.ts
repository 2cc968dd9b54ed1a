/**
 * Waits `ms`. An abort of `signal` ends the wait at once and rejects with the signal's
 * reason, and the timer is cleared, so a closed transport or a cancelled call leaves no
 * timer behind. The one `sleep` of every mcpkit package.
 */
export const sleep = (ms: number, signal?: AbortSignal): Promise<void> =>
  new Promise<void>((resolve, reject) => {
    if (signal?.aborted) return reject(signal.reason);
    const timer = setTimeout(done, ms);
    function done() {
      signal?.removeEventListener('abort', aborted);
      resolve();
    }
    function aborted() {
      clearTimeout(timer);
      reject(signal!.reason);
    }
    signal?.addEventListener('abort', aborted, { once: true });
  });

/**
 * One `abort` listener per signal, however many requests wait on it. A host that gives one
 * signal (its shutdown, a command's Ctrl-C) to many concurrent requests — a ping to each of
 * a dozen servers, each on its own peer — would otherwise add a listener per request, and
 * Node warns past ten (`MaxListenersExceededWarning: 11 abort listeners added to
 * [AbortSignal]`). The listener is removed when the last waiter leaves.
 */
interface Fanout {
  waiters: Set<() => void>;
  listener: () => void;
}

const fanouts = new WeakMap<AbortSignal, Fanout>();

/** Calls `onabort` once when `signal` aborts; the returned function stops that. */
export function onAbort(signal: AbortSignal, onabort: () => void): () => void {
  let fanout = fanouts.get(signal);
  if (!fanout) {
    const waiters = new Set<() => void>();
    const listener = () => {
      fanouts.delete(signal);
      // A waiter may settle others as it runs: only those still waiting are called.
      for (const waiter of [...waiters]) if (waiters.delete(waiter)) waiter();
    };
    fanout = { waiters, listener };
    fanouts.set(signal, fanout);
    signal.addEventListener('abort', listener, { once: true });
  }
  const own = fanout;
  // A function of its own, so that the same callback given twice is two waiters.
  const waiter = () => onabort();
  own.waiters.add(waiter);
  return () => {
    if (!own.waiters.delete(waiter) || own.waiters.size > 0) return;
    if (fanouts.get(signal) === own) fanouts.delete(signal);
    signal.removeEventListener('abort', own.listener);
  };
}

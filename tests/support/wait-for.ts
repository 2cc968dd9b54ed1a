/**
 * Waits until `check` gives a value, looking again every few milliseconds: for state
 * another process changes (a file, the process table). The test's own timeout bounds it.
 * Only `undefined`, `null` and `false` mean "not yet": an exit status of 0 or an empty
 * string is an answer.
 */
export async function waitFor<T>(
  check: () => T | undefined | null | false,
  what: string,
): Promise<T> {
  for (let i = 0; ; i++) {
    const value = check();
    if (value !== undefined && value !== null && value !== false) return value;
    if (i > 0 && i % 2000 === 0) console.warn(`still waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 10));
  }
}

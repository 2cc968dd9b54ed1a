import { readdirSync, readFileSync } from 'node:fs';

export interface ProcessEntry {
  pid: number;
  ppid: number;
  state: string;
  cmdline: string;
  /** When it started (clock ticks since boot): with the pid, names one process even if pids are reused. */
  started: number;
}

/** The live (non-zombie) processes of this machine, read from /proc. */
export function processTable(): ProcessEntry[] {
  const out: ProcessEntry[] = [];
  for (const name of readdirSync('/proc')) {
    if (!/^\d+$/.test(name)) continue;
    try {
      const stat = readFileSync(`/proc/${name}/stat`, 'latin1');
      const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
      const cmdline = readFileSync(`/proc/${name}/cmdline`, 'latin1').split('\0').join(' ').trim();
      if (fields[0] === 'Z') continue;
      out.push({
        pid: Number(name),
        ppid: Number(fields[1]),
        state: fields[0]!,
        cmdline,
        started: Number(fields[19]),
      });
    } catch {
      // Exited while reading.
    }
  }
  return out;
}

/** A process as itself: its pid and its start time (a pid alone can be reused). */
export const processKey = (p: ProcessEntry): string => `${p.pid}@${p.started}`;

/**
 * Processes that mention `marker` and are not `rootPid` or its descendants. With `before`
 * (the keys of every process that ran when the test run began), a process is left out too
 * when it or one of its ancestors was already running then: a benchmark or a second test
 * run started from a shell of the same checkout hangs under that shell, while a process a
 * test left behind hangs under init (its parents gone) or under others the run started.
 */
export function strayProcesses(
  marker: string,
  rootPid: number,
  before?: ReadonlySet<string>,
): ProcessEntry[] {
  const table = processTable();
  const byPid = new Map(table.map((p) => [p.pid, p]));
  const children = new Map<number, number[]>();
  for (const p of table) children.set(p.ppid, [...(children.get(p.ppid) ?? []), p.pid]);
  const ours = new Set<number>();
  const queue = [rootPid];
  while (queue.length > 0) {
    const pid = queue.pop()!;
    ours.add(pid);
    queue.push(...(children.get(pid) ?? []));
  }
  const underOlder = (p: ProcessEntry): boolean => {
    if (!before) return false;
    // Up the chain to init (pid 1, never counted: every orphan is re-parented to it).
    for (let at: ProcessEntry | undefined = p; at && at.pid !== 1; at = byPid.get(at.ppid))
      if (before.has(processKey(at))) return true;
    return false;
  };
  return table.filter((p) => !ours.has(p.pid) && p.cmdline.includes(marker) && !underOlder(p));
}

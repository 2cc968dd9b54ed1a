import { readdirSync, readFileSync } from 'node:fs';

export interface ProcessEntry {
  pid: number;
  ppid: number;
  state: string;
  cmdline: string;
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
      out.push({ pid: Number(name), ppid: Number(fields[1]), state: fields[0]!, cmdline });
    } catch {
      // Exited while reading.
    }
  }
  return out;
}

/** Processes that mention `marker` and are not `rootPid` or its descendants. */
export function strayProcesses(marker: string, rootPid: number): ProcessEntry[] {
  const table = processTable();
  const children = new Map<number, number[]>();
  for (const p of table) children.set(p.ppid, [...(children.get(p.ppid) ?? []), p.pid]);
  const ours = new Set<number>();
  const queue = [rootPid];
  while (queue.length > 0) {
    const pid = queue.pop()!;
    ours.add(pid);
    queue.push(...(children.get(pid) ?? []));
  }
  return table.filter((p) => !ours.has(p.pid) && p.cmdline.includes(marker));
}

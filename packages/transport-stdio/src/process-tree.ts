import { execFileSync } from 'node:child_process';
import { readdirSync, readFileSync } from 'node:fs';

/** One process of a tree, with what identifies it across PID reuse. */
export interface TreeMember {
  pid: number;
  /** Linux: start time in clock ticks since boot; elsewhere undefined. */
  startTime: string | undefined;
  /** Process group when snapshotted (members of our group get the group signal). */
  groupId?: number;
}

interface ProcInfo {
  pid: number;
  ppid: number;
  pgid: number;
  state: string;
  startTime: string | undefined;
}

function readLinuxProc(pid: number): ProcInfo | undefined {
  let stat: string;
  try {
    stat = readFileSync(`/proc/${pid}/stat`, 'latin1');
  } catch {
    return undefined;
  }
  // The command name is in parentheses and may itself contain spaces or ")".
  const close = stat.lastIndexOf(')');
  const fields = stat.slice(close + 2).split(' ');
  return {
    pid,
    state: fields[0] ?? '?',
    ppid: Number(fields[1]),
    pgid: Number(fields[2]),
    startTime: fields[19],
  };
}

function listProcesses(platform: NodeJS.Platform): ProcInfo[] {
  if (platform === 'linux') {
    const out: ProcInfo[] = [];
    let entries: string[];
    try {
      entries = readdirSync('/proc');
    } catch {
      return listWithPs();
    }
    for (const name of entries) {
      const first = name.charCodeAt(0);
      if (first < 48 || first > 57) continue;
      const info = readLinuxProc(Number(name));
      if (info) out.push(info);
    }
    return out;
  }
  return listWithPs();
}

function listWithPs(): ProcInfo[] {
  try {
    const text = execFileSync('ps', ['-A', '-o', 'pid=,ppid=,pgid=,stat='], {
      encoding: 'utf8',
      timeout: 2000,
    });
    return text
      .split('\n')
      .map((line) => line.trim().split(/\s+/))
      .filter((f) => f.length >= 4)
      .map((f) => ({
        pid: Number(f[0]),
        ppid: Number(f[1]),
        pgid: Number(f[2]),
        state: f[3]!.charAt(0),
        startTime: undefined,
      }));
  } catch {
    return [];
  }
}

/**
 * The process and all of its live descendants, plus every member of its process group.
 * Taken before signalling, because once a parent exits its children are re-parented
 * and can no longer be found from it.
 */
export function snapshotTree(
  rootPid: number,
  platform: NodeJS.Platform = process.platform,
): TreeMember[] {
  const all = listProcesses(platform);
  const children = new Map<number, ProcInfo[]>();
  for (const p of all) {
    const list = children.get(p.ppid);
    if (list) list.push(p);
    else children.set(p.ppid, [p]);
  }
  const found = new Map<number, ProcInfo>();
  const queue = all.filter((p) => p.pid === rootPid || p.pgid === rootPid);
  while (queue.length > 0) {
    const p = queue.pop()!;
    if (found.has(p.pid)) continue;
    found.set(p.pid, p);
    for (const c of children.get(p.pid) ?? []) queue.push(c);
  }
  return [...found.values()]
    .filter((p) => p.state !== 'Z')
    .map((p) => ({ pid: p.pid, startTime: p.startTime, groupId: p.pgid }));
}

/** True while the member is running (not gone, not a zombie, not a reused PID). */
export function isAlive(member: TreeMember, platform: NodeJS.Platform = process.platform): boolean {
  if (platform === 'linux') {
    const info = readLinuxProc(member.pid);
    if (!info || info.state === 'Z') return false;
    return member.startTime === undefined || info.startTime === member.startTime;
  }
  try {
    process.kill(member.pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
}

/** Signals the process group (when we made one) and every live member of the snapshot. */
export function signalTree(
  groupId: number | undefined,
  members: readonly TreeMember[],
  signal: NodeJS.Signals,
  platform: NodeJS.Platform = process.platform,
): void {
  if (platform === 'win32') {
    const root = members[0];
    if (root) {
      try {
        execFileSync('taskkill', ['/T', '/F', '/PID', String(root.pid)], {
          stdio: 'ignore',
          timeout: 5000,
        });
      } catch {
        // Already gone.
      }
    }
    return;
  }
  if (groupId !== undefined) {
    try {
      process.kill(-groupId, signal);
    } catch {
      // The group is empty.
    }
  }
  for (const member of members) {
    if (groupId !== undefined && member.groupId === groupId) continue;
    if (!isAlive(member, platform)) continue;
    try {
      process.kill(member.pid, signal);
    } catch {
      // Exited between the check and the signal.
    }
  }
}

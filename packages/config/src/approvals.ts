import { type ApprovalRecord, approvalChanges } from './signature.js';

export interface ProjectApprovals {
  /** Approved project servers: name → what was approved (file and signature). */
  servers?: Readonly<Record<string, ApprovalRecord>>;
  /** Rejected by name: a rejection holds whatever the entry becomes. */
  rejected?: readonly string[];
  /** Old, name-only format: no longer counts as approval (see `legacyApprovals`). */
  enableAll?: boolean;
  /** Old, name-only format: no longer counts as approval (see `legacyApprovals`). */
  approved?: readonly string[];
}

/** Why a project server waits for approval: never approved, changed since, or approved by name only. */
export type ApprovalNeeded = 'new' | 'changed' | 'name-only';

/** Whether approvals hold old name-only entries, which no longer count. */
export function legacyApprovals(a: ProjectApprovals | undefined): boolean {
  return !!a && (a.enableAll === true || (Array.isArray(a.approved) && a.approved.length > 0));
}

/**
 * The status of a project server given the stored approvals: approved only when a record
 * for this name matches the entry as it is now (file and signature); rejected by name.
 */
export function approvalStatus(
  name: string,
  source: string,
  current: ApprovalRecord,
  approvals: ProjectApprovals | undefined,
): {
  status: 'enabled' | 'pending-approval' | 'rejected';
  reason: string;
  approvalNeeded?: ApprovalNeeded;
} {
  const a = approvals ?? {};
  if (Array.isArray(a.rejected) && a.rejected.includes(name))
    return { status: 'rejected', reason: 'project server rejected by the user' };
  const stored = a.servers && Object.hasOwn(a.servers, name) ? a.servers[name] : undefined;
  const changes = stored === undefined ? undefined : approvalChanges(stored, current);
  if (changes?.length === 0) return { status: 'enabled', reason: 'project server approved' };
  if (changes)
    return {
      status: 'pending-approval',
      reason: `changed since approved: ${changes.join(', ')} (in ${source}); it is not started until approved again`,
      approvalNeeded: 'changed',
    };
  if (a.enableAll === true || (Array.isArray(a.approved) && a.approved.includes(name)))
    return {
      status: 'pending-approval',
      reason: `approved by name only (an older format, which no longer counts); the entry in ${source} is not started until approved again`,
      approvalNeeded: 'name-only',
    };
  return {
    status: 'pending-approval',
    reason: `project server from ${source} waits for approval; it is not started until approved`,
    approvalNeeded: 'new',
  };
}

/**
 * Judging a push against a fresh read of the remote, and the base it leaves: pure.
 * Every change the push meant to make is checked end to end; whatever did not verify
 * stays pending (its base entry unchanged), so the next push plans it again.
 */
import { targetOf } from '../../model/change.js';
import { entriesEqual, toBaseEntry } from '../../model/snapshot.js';
import { comparePaths } from '../../model/paths.js';
import type { Change, Conflict, Entry, Reconciliation, Snapshot } from '../../model/types.js';
import type { StepFailure } from '../../model/types.js';
import { settleBase } from './settle.js';
import { VANISHED_NAMED } from '../tunables.js';

export interface VerifyInput {
  /** The base the push started from. */
  oldBase: Snapshot | null;
  /** Every change the push sent (all rounds). */
  intended: readonly Change[];
  /** Failures the transfer reported. */
  failures: readonly StepFailure[];
  /** Local files that disappeared before they could be sent. */
  vanished: ReadonlySet<string>;
  /** Writes held back because the deployment changed the file during the push (ExecResult.held). */
  held: ReadonlySet<string>;
  /** What the transfer sent: path -> hash of the bytes read. */
  sent: ReadonlyMap<string, string>;
  /** The local tree, protected against the verifying read (Decision.local). */
  local: Snapshot;
  /** The verifying read of the remote. */
  remote: Snapshot;
  /** The reconcile against the verifying read. */
  rec: Reconciliation;
  /** The conflicts found before the transfer (reported even if they resolved meanwhile). */
  firstConflicts: readonly Conflict[];
}

export interface Verdict {
  /** Changes that did not land as pushed (the transfer's own failures are not repeated). */
  failures: StepFailure[];
  warnings: string[];
  conflicts: Conflict[];
  /** The base to save. */
  base: Snapshot;
  /**
   * The changes that verified, by kind. Counted from the changes, not from the requests
   * that carried them: a rename the planner resent as delete + write is still one move.
   */
  counts: { written: number; deleted: number; moved: number; chmod: number };
}

/** Did this change land, judged against a verified remote read? */
export function landed(c: Change, local: Snapshot, remote: Snapshot): boolean {
  switch (c.kind) {
    case 'delete':
      return !remote.has(c.path);
    case 'rename':
      return !remote.has(c.from) && entriesEqual(local.get(c.to), remote.get(c.to));
    default:
      return entriesEqual(local.get(c.path), remote.get(c.path));
  }
}

function mergeConflicts(a: readonly Conflict[], b: readonly Conflict[]): Conflict[] {
  const byPath = new Map(a.map((c) => [c.path, c]));
  for (const c of b) if (!byPath.has(c.path)) byPath.set(c.path, c);
  return [...byPath.values()].sort((x, y) => comparePaths(x.path, y.path));
}

/** One warning per vanished file, or one for them all when a folder went (a line per file would bury the report). */
function vanishedWarnings(paths: string[]): string[] {
  if (paths.length <= VANISHED_NAMED) return paths.map((p) => `${p} disappeared locally during the push: not sent (the next push handles its deletion)`);
  const sorted = [...paths].sort(comparePaths);
  return [
    `${paths.length} files disappeared locally during the push (${sorted.slice(0, VANISHED_NAMED).join(', ')}, +${paths.length - VANISHED_NAMED} more): not sent, the rest was (the next push handles their deletion)`,
  ];
}

export function verify(input: VerifyInput): Verdict {
  const failures: StepFailure[] = [];
  const failed = new Set([...input.failures.map((f) => f.path), ...input.vanished, ...input.held]);
  const warnings = vanishedWarnings([...input.vanished]);
  // A held write normally reads back as a conflict (both sides changed). One still planned
  // as a change (the remote edit was undone meanwhile) did not land: a failure, sent next time.
  const pending = new Set(input.rec.changes.map(targetOf));
  for (const p of input.held) {
    if (pending.has(p)) failures.push({ path: p, error: 'changed on the deployment during the push, so not written: push again' });
  }
  // A write that does not verify but whose remote bytes hash to exactly what we sent raced
  // a local edit (the file changed between the scan and the read that sent it). Those bytes
  // are ours, so they become its base entry: the next push sends the newer file as a plain
  // modification instead of calling it a conflict with itself. Bytes we did not send
  // (someone else wrote after us) stay a conflict: never adopted, never overwritten.
  const raced = new Map<string, Entry>();
  for (const c of input.intended) {
    const p = targetOf(c);
    if (failed.has(p) || landed(c, input.local, input.remote)) continue;
    failures.push({ path: p, error: 'not as pushed on the deployment after the push (verification failed)' });
    failed.add(p);
    const onRemote = input.remote.get(p);
    if (c.kind === 'write' && onRemote && onRemote.hash !== null && onRemote.hash === input.sent.get(p)) raced.set(p, onRemote);
  }
  const counts = { written: 0, deleted: 0, moved: 0, chmod: 0 };
  const counted = new Set<string>();
  for (const c of input.intended) {
    const key = `${c.kind}\0${targetOf(c)}`;
    if (failed.has(targetOf(c)) || counted.has(key)) continue;
    counted.add(key);
    if (c.kind === 'write') counts.written++;
    else if (c.kind === 'delete') counts.deleted++;
    else if (c.kind === 'rename') counts.moved++;
    else counts.chmod++;
  }
  const conflicts = mergeConflicts(input.firstConflicts, input.rec.conflicts.filter((c) => !raced.has(c.path)));
  const settled = settleBase(input.oldBase, input.rec);
  const base = raced.size === 0 ? settled : new Map(settled);
  for (const [p, entry] of raced) base.set(p, toBaseEntry(entry));
  return { failures, warnings, conflicts, base, counts };
}

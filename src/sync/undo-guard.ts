/**
 * Every command that merges against the base asks here first: an undo that was killed
 * mid-way (state/undo-pending.ts) left the remote half taken back and the base not yet
 * saved, so what it restored would look like remote drift, and a pull would bring it down
 * over the local edits. Such a command refuses (exit 3) and names the way out.
 */
import { refusal } from '../errors.js';
import { UndoPendingStore, type UndoPending } from '../state/undo-pending.js';
import type { Session } from './session.js';

export const undoPendingStore = (session: Session): UndoPendingStore => new UndoPendingStore(session.stateDir, session.config.deploymentId);

/** The interrupted undo's message: what happened, why `command` stops, what to run. */
export function interruptedUndoMessage(pending: UndoPending, command: string): string {
  const when = pending.startedAt ? ` (started ${pending.startedAt})` : '';
  return (
    `an undo was interrupted${when}: the deployment holds a mix of pushed and restored files, so ${command} would take the restored ones for remote changes; ` +
    'run `hostsync undo --continue` to finish it (or `hostsync undo --abandon` to keep the deployment as it is now)'
  );
}

/** Refuses `command` while an interrupted undo is pending. */
export async function refuseWhileUndoPending(session: Session, command: string): Promise<void> {
  const pending = await undoPendingStore(session).load();
  if (pending !== null) throw refusal(interruptedUndoMessage(pending, command));
}

/**
 * The paths of a change, written once: every module that asks "which remote paths does
 * this change touch?" asks here.
 */
import type { Change } from './types.js';

/** Every remote path a change touches: both ends of a rename, else its one path. */
export const pathsOf = (c: Change): string[] => (c.kind === 'rename' ? [c.from, c.to] : [c.path]);

/** The remote path a change produces or removes (a rename's target). */
export const targetOf = (c: Change): string => (c.kind === 'rename' ? c.to : c.path);

/** Every remote path a list of changes touches, in order. */
export const changedPaths = (changes: readonly Change[]): string[] => changes.flatMap(pathsOf);

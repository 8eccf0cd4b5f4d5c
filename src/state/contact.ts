/**
 * A copy's first contact with the deployment's base record, for a folder that is not a git
 * work tree (or whose deployment was last pushed without a git stamp) and has no base of its
 * own: `.hostsync/<deployment>/contact.json`. It holds the record's batch ids as the copy
 * first read them, and the paths where the copy then differed from the record (or lacked
 * them). From then on, a batch another machine records is "elsewhere" for this copy, never
 * its own change; a path it differed on stays a conflict until it is settled (a pull, a
 * resolve, or a push --force), and a path it lacked is never deleted by it.
 *
 * Written once, by whichever command reads the record first (status included: it takes no
 * lock, so the file is written atomically and a second writer's equal answer just replaces
 * it). A damaged file is no contact: the next command makes it again, from the record as it
 * is then (never a permission to overwrite: the differing paths are conflicts either way).
 */
import { mkdir, readFile } from 'node:fs/promises';
import path from 'node:path';
import { writeFileAtomic } from '../local/atomic-write.js';

export interface Contact {
  /** The record's path on the deployment when contact was made (another record: no contact). */
  record: string;
  /** When contact was made (ISO). */
  at: string;
  /** The record's batch ids then. */
  seen: string[];
  /** Paths the record's base held that the copy did not hold as recorded (differed, or lacked). */
  differing: string[];
}

const fileOf = (stateDir: string): string => path.join(stateDir, 'contact.json');

const strings = (v: unknown): v is string[] => Array.isArray(v) && v.every((x) => typeof x === 'string');

export async function loadContact(stateDir: string): Promise<Contact | null> {
  try {
    const c = JSON.parse(await readFile(fileOf(stateDir), 'utf8')) as Partial<Contact>;
    if (typeof c.record !== 'string' || typeof c.at !== 'string' || !strings(c.seen) || !strings(c.differing)) return null;
    return { record: c.record, at: c.at, seen: c.seen, differing: c.differing };
  } catch {
    return null;
  }
}

export async function saveContact(stateDir: string, contact: Contact): Promise<void> {
  await mkdir(stateDir, { recursive: true });
  await writeFileAtomic(fileOf(stateDir), `${JSON.stringify(contact)}\n`);
}

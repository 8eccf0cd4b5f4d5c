/**
 * The kind `"health": "auto"` last judged the app as, and said so
 * (`.hostsync/<deployment>/auto-kind`, `web` or `worker`): the push report's "auto judged
 * it a web ...; pin it" is news once, not on every push (issue 46, item 13). A kind that
 * changes is said again; a missing or unreadable file means not said yet.
 */
import { mkdir, readFile } from 'node:fs/promises';
import path from 'node:path';
import { writeFileAtomic } from '../local/atomic-write.js';

const FILE = 'auto-kind';

/** Records `kind` as said; true when it had not been said before (first judged, or judged differently). */
export async function sayAutoKindOnce(stateDir: string, kind: string): Promise<boolean> {
  const said = await readFile(path.join(stateDir, FILE), 'utf8').then((t) => t.trim(), () => null);
  if (said === kind) return false;
  // Not remembered (a read-only state folder): said again next time, which is only a repeat.
  await mkdir(stateDir, { recursive: true })
    .then(() => writeFileAtomic(path.join(stateDir, FILE), `${kind}\n`))
    .catch(() => undefined);
  return true;
}

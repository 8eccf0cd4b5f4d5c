import { createHmac, randomBytes } from 'node:crypto';
import { link, mkdir, readFile, rm, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { usageError } from '../errors.js';
import { writeFileAtomic } from '../local/atomic-write.js';

/** The per-user key's file, in the user's config folder (config/trust.ts userConfigDir), never in a project. */
export const DIGEST_KEY_FILE = 'env-digest.key';

/**
 * What hostsync remembers of the secrets it set, so `env diff` can tell whether the file
 * changed one although the service never returns a secret's value: an HMAC-SHA256 of each
 * value, never the value. The HMAC key is derived from a random key kept in the user's
 * config folder (mode 0600) and a random salt per state folder: `env-digests.json`, in
 * the project, holds the salt and the digests but not the key, so a copy of the project
 * (a backup, a shared folder, a push that slipped through) gives nobody a way to test
 * guesses of a short secret against it. The salt keeps two deployments' digests of the
 * same value apart.
 *
 * A file written before the key existed (its digests keyed by its own salt, "version"
 * absent) is read once: a digest it holds still vouches for a value, and is written back
 * under the new key when compared; what was never compared again is dropped at the save.
 */
export class EnvDigests {
  private constructor(
    private readonly file: string,
    private readonly salt: Buffer,
    private readonly key: Buffer,
    private readonly digests: Map<string, string>,
    /** Digests of a pre-key file and the salt they were keyed with (see above); empty otherwise. */
    private readonly legacy: { salt: Buffer; digests: Map<string, string> } | null,
  ) {}

  /** `keyDir`: the user's config folder, where the per-user key lives (created on first use). */
  static async load(stateDir: string, keyDir: string): Promise<EnvDigests> {
    const file = path.join(stateDir, 'env-digests.json');
    const userKey = await loadUserKey(keyDir);
    try {
      const raw = JSON.parse(await readFile(file, 'utf8')) as { version?: unknown; salt?: unknown; digests?: unknown };
      if (typeof raw.salt === 'string' && /^[0-9a-f]{64}$/.test(raw.salt) && typeof raw.digests === 'object' && raw.digests !== null) {
        const entries = new Map(Object.entries(raw.digests as Record<string, unknown>).filter((e): e is [string, string] => typeof e[1] === 'string'));
        const salt = Buffer.from(raw.salt, 'hex');
        if (raw.version === 2) return new EnvDigests(file, salt, deriveKey(userKey, salt), entries, null);
        const fresh = randomBytes(32);
        return new EnvDigests(file, fresh, deriveKey(userKey, fresh), new Map(), { salt, digests: entries });
      }
    } catch {
      // Missing or unreadable: start afresh. Losing digests only makes diff unable to vouch for secrets.
    }
    const salt = randomBytes(32);
    return new EnvDigests(file, salt, deriveKey(userKey, salt), new Map(), null);
  }

  private digest(value: string): string {
    return createHmac('sha256', this.key).update(value, 'utf8').digest('hex');
  }

  /** true: the remembered secret equals `value`; false: it differs; null: hostsync did not set it (nothing to compare). */
  matches(key: string, value: string): boolean | null {
    const d = this.digests.get(key);
    if (d !== undefined) return d === this.digest(value);
    const old = this.legacy?.digests.get(key);
    if (old === undefined) return null;
    const same = old === createHmac('sha256', this.legacy!.salt).update(value, 'utf8').digest('hex');
    // Re-keyed now, while the value is at hand: the next save keeps no salt-only digest.
    if (same) this.remember(key, value);
    return same;
  }

  remember(key: string, value: string): void {
    this.digests.set(key, this.digest(value));
    this.legacy?.digests.delete(key);
  }

  forget(key: string): void {
    this.digests.delete(key);
    this.legacy?.digests.delete(key);
  }

  async save(): Promise<void> {
    const body = { version: 2, salt: this.salt.toString('hex'), digests: Object.fromEntries([...this.digests].sort(([a], [b]) => (a < b ? -1 : 1))) };
    await mkdir(path.dirname(this.file), { recursive: true });
    await writeFileAtomic(this.file, `${JSON.stringify(body, null, 2)}\n`);
  }
}

function deriveKey(userKey: Buffer, salt: Buffer): Buffer {
  return createHmac('sha256', userKey).update(salt).digest();
}

/** The per-user key: read, or made once (two processes racing agree on the first one linked into place). */
async function loadUserKey(dir: string): Promise<Buffer> {
  const file = path.join(dir, DIGEST_KEY_FILE);
  const read = async (): Promise<Buffer | null> => {
    let text: string;
    try {
      text = (await readFile(file, 'utf8')).trim();
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code === 'ENOENT') return null;
      throw usageError(`cannot read ${file} (${(err as NodeJS.ErrnoException).code ?? 'error'}): check its permissions`);
    }
    if (!/^[0-9a-f]{64}$/.test(text)) throw usageError(`${file} is not a key hostsync wrote: delete it (secrets set before then show as unverified until the next env push)`);
    return Buffer.from(text, 'hex');
  };
  const found = await read();
  if (found) return found;
  await mkdir(dir, { recursive: true, mode: 0o700 });
  const tmp = `${file}.${process.pid}.${randomBytes(4).toString('hex')}.tmp`;
  await writeFile(tmp, `${randomBytes(32).toString('hex')}\n`, { mode: 0o600 });
  try {
    // link, not rename: it fails when another process put its key there first.
    await link(tmp, file);
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code !== 'EEXIST') throw err;
  } finally {
    await rm(tmp, { force: true });
  }
  return (await read())!;
}

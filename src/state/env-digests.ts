import { createHmac, randomBytes } from 'node:crypto';
import { mkdir, readFile } from 'node:fs/promises';
import path from 'node:path';
import { writeFileAtomic } from '../local/atomic-write.js';

/**
 * What hostsync remembers of the secrets it set, so `env diff` can tell whether the file
 * changed one although the service never returns a secret's value: a salted HMAC-SHA256 of
 * each value, never the value. The salt is random per state folder, so two deployments'
 * digests of the same value differ and a digest cannot be looked up in a precomputed table.
 */
export class EnvDigests {
  private constructor(
    private readonly file: string,
    private readonly salt: Buffer,
    private readonly digests: Map<string, string>,
  ) {}

  static async load(stateDir: string): Promise<EnvDigests> {
    const file = path.join(stateDir, 'env-digests.json');
    try {
      const raw = JSON.parse(await readFile(file, 'utf8')) as { salt?: unknown; digests?: unknown };
      if (typeof raw.salt === 'string' && /^[0-9a-f]{64}$/.test(raw.salt) && typeof raw.digests === 'object' && raw.digests !== null) {
        const entries = Object.entries(raw.digests as Record<string, unknown>).filter((e): e is [string, string] => typeof e[1] === 'string');
        return new EnvDigests(file, Buffer.from(raw.salt, 'hex'), new Map(entries));
      }
    } catch {
      // Missing or unreadable: start afresh. Losing digests only makes diff unable to vouch for secrets.
    }
    return new EnvDigests(file, randomBytes(32), new Map());
  }

  private digest(value: string): string {
    return createHmac('sha256', this.salt).update(value, 'utf8').digest('hex');
  }

  /** true: the remembered secret equals `value`; false: it differs; null: hostsync did not set it (nothing to compare). */
  matches(key: string, value: string): boolean | null {
    const d = this.digests.get(key);
    return d === undefined ? null : d === this.digest(value);
  }

  remember(key: string, value: string): void {
    this.digests.set(key, this.digest(value));
  }

  forget(key: string): void {
    this.digests.delete(key);
  }

  async save(): Promise<void> {
    const body = { salt: this.salt.toString('hex'), digests: Object.fromEntries([...this.digests].sort(([a], [b]) => (a < b ? -1 : 1))) };
    await mkdir(path.dirname(this.file), { recursive: true });
    await writeFileAtomic(this.file, `${JSON.stringify(body, null, 2)}\n`);
  }
}

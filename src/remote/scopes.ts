/**
 * What this machine has learnt about a key's scopes, kept in the cache folder
 * (`scopes/<hash of the service>.json`) so that learning one costs a request once per
 * key and deployment, not once per push. The API has no endpoint that lists a key's
 * scopes; a scope is learnt by a call that needs it and changes nothing (push.ts).
 *
 * Invariants:
 * - The key is never written: entries are named by keyIdOf (a salted, truncated sha256).
 * - Only "it has the scope" is remembered. A refusal is not: the key's scopes may be
 *   widened in the account's settings, and the next push must see that.
 * - The cache is advisory: a file that cannot be read or written costs a request, never
 *   a failure; a remembered scope that a later call finds gone is forgotten (forget()).
 */
import { createHash } from 'node:crypto';
import { mkdir, readFile } from 'node:fs/promises';
import path from 'node:path';
import { writeFileAtomic } from '../local/atomic-write.js';
import { cacheDir, keyIdOf } from './ledger.js';

const VERSION = 1;

interface ScopeFile {
  version: number;
  /** `<keyId> <deploymentId>` -> scope -> when it was learnt (ISO 8601). */
  keys: Record<string, Record<string, string>>;
}

export class KnownScopes {
  private readonly file: string;
  private readonly entry: string;

  constructor(opts: { origin: string; apiKey: string; deploymentId: string; dir?: string }) {
    const dir = opts.dir ?? path.join(cacheDir(), 'scopes');
    this.file = path.join(dir, `${createHash('sha256').update(opts.origin).digest('hex').slice(0, 16)}.json`);
    this.entry = `${keyIdOf(opts.apiKey)} ${opts.deploymentId}`;
  }

  async has(scope: string): Promise<boolean> {
    const f = await this.read();
    return f.keys[this.entry]?.[scope] !== undefined;
  }

  async remember(scope: string): Promise<void> {
    await this.change((scopes) => {
      scopes[scope] = new Date().toISOString();
    });
  }

  async forget(scope: string): Promise<void> {
    await this.change((scopes) => {
      delete scopes[scope];
    });
  }

  private async change(edit: (scopes: Record<string, string>) => void): Promise<void> {
    try {
      const f = await this.read();
      const scopes = { ...(f.keys[this.entry] ?? {}) };
      edit(scopes);
      f.keys[this.entry] = scopes;
      await mkdir(path.dirname(this.file), { recursive: true, mode: 0o700 });
      await writeFileAtomic(this.file, JSON.stringify(f));
    } catch {
      // Advisory: the next push asks again.
    }
  }

  private async read(): Promise<ScopeFile> {
    try {
      const f = JSON.parse(await readFile(this.file, 'utf8')) as Partial<ScopeFile>;
      if (f.version === VERSION && f.keys && typeof f.keys === 'object') return { version: VERSION, keys: f.keys };
    } catch {
      // Missing or unreadable: nothing known.
    }
    return { version: VERSION, keys: {} };
  }
}

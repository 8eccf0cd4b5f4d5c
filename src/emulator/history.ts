/**
 * files.history: earlier versions of files changed through the API (write, edit,
 * editMany, rename, delete, restore). Lives in the data dir OUTSIDE every volume,
 * so nothing a deployment does to its files can reach it.
 *
 * Layout: <dir>/<sha1(path)>/meta.json ({path, versions newest first}) and one
 * blob per version id. Invariant: every version in meta has its blob.
 */
import { createHash, randomBytes } from 'node:crypto';
import { copyFile, mkdir, readFile, rename, rm, stat, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { EMULATOR_HISTORY_MAX_VERSIONS } from './tunables.js';
import type { FileVersion } from '../api/types.js';

interface Meta {
  path: string;
  versions: FileVersion[];
}

export class HistoryStore {
  /** Serialises meta.json read-modify-write per path; concurrent requests must not lose versions. */
  private readonly locks = new Map<string, Promise<unknown>>();
  private seq = 0;

  constructor(readonly dir: string) {}

  private slot(rel: string): string {
    return path.join(this.dir, createHash('sha1').update(rel).digest('hex'));
  }

  private async withLock<T>(rel: string, fn: () => Promise<T>): Promise<T> {
    const prev = this.locks.get(rel) ?? Promise.resolve();
    const run = prev.then(fn, fn);
    const tail = run.catch(() => undefined);
    this.locks.set(rel, tail);
    try {
      return await run;
    } finally {
      if (this.locks.get(rel) === tail) this.locks.delete(rel);
    }
  }

  private async readMeta(rel: string): Promise<Meta> {
    try {
      return JSON.parse(await readFile(path.join(this.slot(rel), 'meta.json'), 'utf8')) as Meta;
    } catch {
      return { path: rel, versions: [] };
    }
  }

  private async writeMeta(rel: string, meta: Meta): Promise<void> {
    const file = path.join(this.slot(rel), 'meta.json');
    const tmp = `${file}.${randomBytes(4).toString('hex')}.tmp`;
    await writeFile(tmp, JSON.stringify(meta));
    await rename(tmp, file);
  }

  /** Ids sort by time and stay unique within one process. */
  private newId(): string {
    return `v${Date.now().toString(36)}${(this.seq++).toString(36).padStart(4, '0')}`;
  }

  /** Keeps a copy of the regular file at `abs` as the newest version of `rel`. */
  async save(rel: string, abs: string): Promise<FileVersion> {
    return this.withLock(rel, async () => {
      const slot = this.slot(rel);
      await mkdir(slot, { recursive: true });
      const id = this.newId();
      await copyFile(abs, path.join(slot, id));
      const { size } = await stat(path.join(slot, id));
      const version: FileVersion = { id, savedAt: new Date().toISOString(), bytes: size };
      const meta = await this.readMeta(rel);
      meta.versions.unshift(version);
      const dropped = meta.versions.splice(EMULATOR_HISTORY_MAX_VERSIONS);
      await this.writeMeta(rel, meta);
      for (const d of dropped) await rm(path.join(slot, d.id), { force: true });
      return version;
    });
  }

  /** Newest first; empty when nothing was ever saved for `rel`. */
  async list(rel: string): Promise<FileVersion[]> {
    return (await this.readMeta(rel)).versions;
  }

  /** Host path of a version's bytes, or null if `rel` has no such version. */
  async blob(rel: string, id: string): Promise<string | null> {
    const meta = await this.readMeta(rel);
    return meta.versions.some((v) => v.id === id) ? path.join(this.slot(rel), id) : null;
  }
}

/**
 * Restore points: backups.list/get/restore, taken automatically on a schedule and
 * before destructive operations. Each is a tar.gz of the volume kept in the data
 * folder OUTSIDE every volume (`<data>/backups/<deployment>/<id>.tar.gz` plus
 * `index.json`), so they survive a restart of an emulator run with --data.
 *
 * The routes are in backup-routes.ts (they go through context.ts, which names this store).
 *
 * Restores run in the background, as the document says; `operation` in
 * backups.list shows the one in progress, or the last one.
 */
import { randomBytes } from 'node:crypto';
import { mkdirSync } from 'node:fs';
import { cp, mkdir, mkdtemp, readdir, readFile, rename, rm, stat, writeFile } from 'node:fs/promises';
import path from 'node:path';
import * as tar from 'tar';
import type { EmulatedDeployment } from './deployment.js';
import { conflict, notFound } from './errors.js';
import { EMULATOR_BACKUP_ATTEMPTS, EMULATOR_BACKUP_KEEP, EMULATOR_SAFETY_BACKUP_MIN_GAP_MS } from './tunables.js';

export interface BackupRecord {
  id: string;
  time: string;
  /** `auto` (scheduled) or `safety` (taken before a destructive operation). */
  kind: string;
  files: number;
  sizeBytes: number;
}

export interface BackupOperation {
  kind: string;
  state: string;
  error: string;
  detail: string;
}

interface DeploymentBackups {
  records: BackupRecord[];
  operation: BackupOperation | null;
  lastSafetyAt: number;
  /** The restore or snapshot in flight: restores and snapshots of one deployment never overlap. */
  busy: Promise<unknown>;
}

/**
 * A file that vanished, or changed size, while tar read it: the volume is live (the app
 * and other requests write to it), so a snapshot can race a change. Nothing is wrong with
 * the volume; the snapshot is simply taken again.
 */
export function isLiveChange(err: unknown): boolean {
  const code = (err as NodeJS.ErrnoException | undefined)?.code;
  return code === 'ENOENT' || code === 'ENOTDIR' || code === 'EOF';
}

/** Runs `snapshot` until it does not race a change, at most `attempts` times; other errors pass at once. */
export async function retryWhileVolumeChanges<T>(snapshot: () => Promise<T>, attempts: number): Promise<T> {
  for (let i = 1; ; i++) {
    try {
      return await snapshot();
    } catch (err) {
      if (i >= attempts || !isLiveChange(err)) throw err;
    }
  }
}

async function countFiles(dir: string): Promise<number> {
  let n = 0;
  let entries;
  try {
    entries = await readdir(dir, { withFileTypes: true });
  } catch (err) {
    if (isLiveChange(err)) return 0; // removed while we counted
    throw err;
  }
  for (const e of entries) {
    if (e.isDirectory()) n += await countFiles(path.join(dir, e.name));
    else n += 1;
  }
  return n;
}

export class BackupStore {
  private readonly byDep = new Map<string, DeploymentBackups>();
  private timer: NodeJS.Timeout | null = null;

  constructor(
    private readonly root: string,
    private readonly deployments: () => Iterable<EmulatedDeployment>,
    private readonly opts: { intervalMs: number; enabled: boolean },
  ) {
    mkdirSync(root, { recursive: true });
  }

  /** Starts the schedule; the timer never keeps the process alive. */
  start(): void {
    if (!this.opts.enabled || this.opts.intervalMs <= 0) return;
    this.timer = setInterval(() => {
      for (const dep of this.deployments()) void this.take(dep, 'auto').catch(() => undefined);
    }, this.opts.intervalMs);
    this.timer.unref();
  }

  stop(): void {
    if (this.timer) clearInterval(this.timer);
  }

  private dirOf(dep: EmulatedDeployment): string {
    return path.join(this.root, dep.id);
  }

  private async state(dep: EmulatedDeployment): Promise<DeploymentBackups> {
    let s = this.byDep.get(dep.id);
    if (!s) {
      let records: BackupRecord[] = [];
      try {
        records = JSON.parse(await readFile(path.join(this.dirOf(dep), 'index.json'), 'utf8')) as BackupRecord[];
      } catch {
        /* none yet, or unreadable: start a fresh index */
      }
      s = this.byDep.get(dep.id) ?? { records, operation: null, lastSafetyAt: 0, busy: Promise.resolve() };
      this.byDep.set(dep.id, s);
    }
    return s;
  }

  private serialise<T>(s: DeploymentBackups, job: () => Promise<T>): Promise<T> {
    const run = s.busy.then(job, job);
    s.busy = run.catch(() => undefined);
    return run;
  }

  async list(dep: EmulatedDeployment): Promise<{ available: boolean; backups: BackupRecord[]; operation: BackupOperation | null }> {
    const s = await this.state(dep);
    return { available: this.opts.enabled, backups: [...s.records].reverse(), operation: s.operation };
  }

  async get(dep: EmulatedDeployment, id: string): Promise<BackupRecord> {
    const r = (await this.state(dep)).records.find((b) => b.id === id);
    if (!r) throw notFound(`restore point not found: ${id}`, 'backup_not_found');
    return r;
  }

  /** A restore point of the volume as it is now. */
  async take(dep: EmulatedDeployment, kind: 'auto' | 'safety'): Promise<BackupRecord> {
    const s = await this.state(dep);
    return this.serialise(s, async () => {
      const dir = this.dirOf(dep);
      await mkdir(dir, { recursive: true });
      const id = `bkp_${randomBytes(6).toString('hex')}`;
      const file = path.join(dir, `${id}.tar.gz`);
      await retryWhileVolumeChanges(async () => {
        const entries = await readdir(dep.volume.root);
        // tar refuses an empty list: an empty volume is archived as its root folder alone.
        await tar.create({ gzip: true, file, cwd: dep.volume.root, portable: true }, entries.length ? entries : ['.']).catch(async (err: unknown) => {
          await rm(file, { force: true });
          throw err;
        });
      }, EMULATOR_BACKUP_ATTEMPTS);
      const record: BackupRecord = { id, time: new Date().toISOString(), kind, files: await countFiles(dep.volume.root), sizeBytes: (await stat(file)).size };
      s.records.push(record);
      for (const old of s.records.splice(0, Math.max(0, s.records.length - EMULATOR_BACKUP_KEEP))) {
        await rm(path.join(dir, `${old.id}.tar.gz`), { force: true });
      }
      await writeFile(path.join(dir, 'index.json.tmp'), JSON.stringify(s.records));
      await rename(path.join(dir, 'index.json.tmp'), path.join(dir, 'index.json'));
      return record;
    });
  }

  /** Called before a destructive operation: one safety point per deployment per gap, so a busy push is not slowed by one per call. */
  async before(dep: EmulatedDeployment, _op: string): Promise<void> {
    if (!this.opts.enabled) return;
    const s = await this.state(dep);
    if (Date.now() - s.lastSafetyAt < EMULATOR_SAFETY_BACKUP_MIN_GAP_MS) return;
    s.lastSafetyAt = Date.now();
    try {
      await this.take(dep, 'safety');
    } catch (err) {
      // A volume changing faster than it can be archived does not fail the caller's
      // request: the destructive calls keep their own copies (files.history), and the
      // next call past the gap tries again.
      if (!isLiveChange(err)) throw err;
      s.lastSafetyAt = 0;
    }
  }

  /** Starts a restore in the background and answers at once with its operation. */
  async restore(dep: EmulatedDeployment, id: string, mode: 'replace' | 'subfolder', paths: string[] | undefined): Promise<BackupOperation> {
    const record = await this.get(dep, id);
    const s = await this.state(dep);
    if (s.operation?.state === 'running') throw conflict('a restore is already running for this deployment; wait for it (backups.list shows its progress)', 'operation_running');
    const op: BackupOperation = { kind: `restore-${mode}`, state: 'running', error: '', detail: `restoring ${record.id} (${record.files} files)` };
    s.operation = op;
    const archive = path.join(this.dirOf(dep), `${record.id}.tar.gz`);
    void this.serialise(s, async () => {
      try {
        if (mode === 'replace') await this.replace(dep, archive);
        else op.detail = `restored into /${await this.intoSubfolder(dep, archive, paths)}/`;
        op.state = 'done';
        if (mode === 'replace') op.detail = `restored ${record.id}`;
      } catch (err) {
        op.state = 'failed';
        op.error = err instanceof Error ? err.message.replaceAll(dep.volume.root, '/home/container') : String(err);
      }
    });
    return { ...op };
  }

  /** `replace`: stop, put every file back (and only those), start again if it was running. */
  private async replace(dep: EmulatedDeployment, archive: string): Promise<void> {
    const wasRunning = dep.runner.state === 'running' || dep.runner.state === 'starting';
    if (wasRunning) await dep.runner.power('stop', 0);
    for (const name of await readdir(dep.volume.root)) await rm(path.join(dep.volume.root, name), { recursive: true, force: true });
    await tar.extract({ file: archive, cwd: dep.volume.root, strict: true });
    if (wasRunning) await dep.runner.power('start', 0);
  }

  /** `subfolder`: copies into /restored-<date>/ without stopping anything; `paths` limits what is copied. */
  private async intoSubfolder(dep: EmulatedDeployment, archive: string, paths: string[] | undefined): Promise<string> {
    const folder = `restored-${new Date().toISOString().replace(/[:.]/g, '-')}`;
    const target = path.join(dep.volume.root, folder);
    const tmp = await mkdtemp(path.join(this.root, '.extract-'));
    try {
      await tar.extract({ file: archive, cwd: tmp, strict: true });
      await mkdir(target, { recursive: true });
      const wanted = paths?.length ? paths.map((p) => dep.volume.normalize(p)) : await readdir(tmp);
      for (const rel of wanted) {
        const from = path.join(tmp, rel);
        try {
          await stat(from);
        } catch {
          continue;
        }
        await mkdir(path.dirname(path.join(target, rel)), { recursive: true });
        await cp(from, path.join(target, rel), { recursive: true });
      }
    } finally {
      await rm(tmp, { recursive: true, force: true });
    }
    return folder;
  }
}

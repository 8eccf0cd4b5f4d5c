/**
 * When `push` last ran hostsync.json's "build" here: `.hostsync/last-build.json` at the
 * project root (one per project: the build's output serves every target). `status` compares
 * the sources' modification times with it (app/build-freshness.ts).
 */
import { mkdir, readFile } from 'node:fs/promises';
import path from 'node:path';
import { writeFileAtomic } from '../local/atomic-write.js';
import { STATE_DIR } from './paths.js';

export interface LastBuild {
  /** When the build started (ms since the epoch): a source saved during it may not be in its output. */
  startedAt: number;
  command: string;
}

const file = (projectRoot: string): string => path.join(projectRoot, STATE_DIR, 'last-build.json');

export async function saveLastBuild(projectRoot: string, build: LastBuild): Promise<void> {
  await mkdir(path.join(projectRoot, STATE_DIR), { recursive: true });
  await writeFileAtomic(file(projectRoot), `${JSON.stringify(build)}\n`);
}

/** The last build push ran, or null (never, or an unreadable record). */
export async function loadLastBuild(projectRoot: string): Promise<LastBuild | null> {
  try {
    const v = JSON.parse(await readFile(file(projectRoot), 'utf8')) as Partial<LastBuild>;
    return typeof v.startedAt === 'number' && Number.isFinite(v.startedAt) && typeof v.command === 'string' ? { startedAt: v.startedAt, command: v.command } : null;
  } catch {
    return null;
  }
}

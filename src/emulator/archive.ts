/**
 * files.compress and files.decompress, as the node does them (Wings): compress
 * always writes tar.gz named archive-<time>.tar.gz; decompress reads zip, tar and
 * tar.gz, skips directory entries (empty folders are not created), keeps each
 * file's mode and mtime, and overwrites existing files.
 *
 * Invariant: an entry lands only at a path that resolves inside the volume.
 * Entries with an absolute path or a ".." segment (zip-slip), symlinks and
 * hard links are skipped, never extracted.
 */
import { createWriteStream, lstatSync, statSync } from 'node:fs';
import { chmod, mkdir, rename, rm, unlink, utimes } from 'node:fs/promises';
import path from 'node:path';
import { pipeline } from 'node:stream/promises';
import { randomBytes } from 'node:crypto';
import * as tar from 'tar';
import yauzl from 'yauzl';
import type { CompressResult, DecompressResult } from '../api/types.js';
import { depRoute, type Ctx, type Route } from './context.js';
import type { EmulatedDeployment } from './deployment.js';
import { ApiError, badRequest, fromFsError } from './errors.js';
import { optBool, optString, reqString, reqStringArray } from './validate.js';
import { Volume } from './volume.js';
import { ExtractedHashes } from './extract-hashes.js';

/** "2024-05-01T101500": Wings' archive name stamp (UTC, no colons, safe in every filesystem). */
export function archiveStamp(d: Date): string {
  return d.toISOString().slice(0, 19).replace(/:/g, '');
}

/** An archive entry name worth extracting: relative, no ".." segment, not empty. Returns it normalised. */
export function safeEntryName(name: string): string | null {
  const n = name.replace(/\\/g, '/');
  if (n.startsWith('/') || /^[A-Za-z]:/.test(n) || n.includes('\0')) return null;
  const parts = n.split('/').filter((s) => s !== '' && s !== '.');
  if (parts.length === 0 || parts.includes('..')) return null;
  return parts.join('/');
}

async function compress(ctx: Ctx, dep: EmulatedDeployment): Promise<CompressResult> {
  const body = await ctx.body();
  const root = optString(body, 'root') ?? '';
  const files = reqStringArray(body, 'files');
  const rootR = dep.volume.resolve(root);
  try {
    if (!statSync(rootR.abs).isDirectory()) throw badRequest(`${root} is not a directory`, 'not_a_directory');
  } catch (err) {
    throw fromFsError(err, root || '/');
  }
  const entries = files.map((f) => {
    const r = dep.volume.resolve(f, { base: root, follow: false });
    try {
      lstatSync(r.abs);
    } catch (err) {
      throw fromFsError(err, f);
    }
    const relToRoot = path.relative(rootR.abs, r.abs);
    if (relToRoot === '' || relToRoot.startsWith('..')) throw badRequest(`${f} is not inside root ${root || '/'}`);
    return relToRoot;
  });
  const stamp = archiveStamp(new Date());
  let name = `archive-${stamp}.tar.gz`;
  for (let i = 1; exists(path.join(rootR.abs, name)); i++) name = `archive-${stamp}-${i}.tar.gz`;
  const final = path.join(rootR.abs, name);
  // Built under a hidden name and renamed, so the archive never contains itself.
  const tmp = path.join(rootR.abs, `.${name}.${randomBytes(4).toString('hex')}.partial`);
  try {
    await tar.create(
      { gzip: true, file: tmp, cwd: rootR.abs, portable: true, filter: (p) => path.resolve(rootR.abs, p) !== tmp },
      entries,
    );
    await rename(tmp, final);
  } catch (err) {
    await rm(tmp, { force: true });
    throw fromFsError(err, root || '/');
  }
  return { ok: true, archive: Volume.show(dep.volume.relOf(final)) };
}

function exists(abs: string): boolean {
  try {
    lstatSync(abs);
    return true;
  } catch {
    return false;
  }
}

type ArchiveKind = 'zip' | 'tar';

export function archiveKindOf(name: string): ArchiveKind | null {
  const n = name.toLowerCase();
  if (n.endsWith('.zip')) return 'zip';
  if (n.endsWith('.tar') || n.endsWith('.tar.gz') || n.endsWith('.tgz')) return 'tar';
  return null;
}

/** Where an entry lands, or null when it must be skipped (escapes, or passes a symlink leading out). */
function landing(dep: EmulatedDeployment, destRel: string, entryName: string): string | null {
  const safe = safeEntryName(entryName);
  if (safe === null) return null;
  try {
    const { abs } = dep.volume.resolve(safe, { base: destRel });
    // A folder already standing where a file would go is left alone.
    return exists(abs) && statSync(abs).isDirectory() ? null : abs;
  } catch {
    return null;
  }
}

async function extractTar(dep: EmulatedDeployment, archive: string, destDir: string): Promise<void> {
  const destRel = dep.volume.relOf(destDir);
  const fileTypes = new Set(['File', 'OldFile', 'ContiguousFile']);
  const written = await ExtractedHashes.create();
  try {
    await untar(dep, archive, destDir, destRel, fileTypes, written);
  } finally {
    // Also after a failure: what did land is as good as after a success.
    written.commit(dep.hashes);
  }
}

function untar(dep: EmulatedDeployment, archive: string, destDir: string, destRel: string, fileTypes: Set<string>, written: ExtractedHashes): Promise<void> {
  return tar.extract({
    file: archive,
    cwd: destDir,
    strict: false,
    // Modes exactly as in the archive (no umask), mtimes kept (tar's default). `unlink`
    // replaces an existing file instead of writing into it: tar would keep the old
    // file's mode, and would write through a symlink standing at the entry's name.
    chmod: true,
    unlink: true,
    processUmask: 0,
    preserveOwner: false,
    filter: (p, entry) => {
      const type = 'type' in entry ? entry.type : null;
      return type !== null && fileTypes.has(type) && landing(dep, destRel, p) !== null;
    },
    onwarn: () => {
      // Entries tar itself refuses (e.g. writing through a symlink) are skipped, like ours.
    },
    // Each file's bytes are hashed on their way to disk (extract-hashes.ts). tar takes any
    // readable stream here (its docs); its types ask for a ReadEntry.
    transform: (entry) => written.tap(entry) as unknown as tar.ReadEntry,
  });
}

const S_IFMT = 0o170000;
const S_IFLNK = 0o120000;
const S_IFDIR = 0o040000;

async function extractZip(dep: EmulatedDeployment, archive: string, destDir: string): Promise<void> {
  const destRel = dep.volume.relOf(destDir);
  // decodeStrings: false, because yauzl otherwise aborts the WHOLE archive on one zip-slip name; we skip just that entry.
  const zip = await yauzl.openPromise(archive, { lazyEntries: true, decodeStrings: false, autoClose: false, validateEntrySizes: true });
  try {
    await new Promise<void>((resolve, reject) => {
      zip.on('error', reject);
      zip.on('end', () => resolve());
      zip.on('entry', (entry: yauzl.Entry) => {
        extractZipEntry(dep, zip, entry, destRel).then(() => zip.readEntry(), reject);
      });
      zip.readEntry();
    });
  } finally {
    zip.close();
  }
}

async function extractZipEntry(dep: EmulatedDeployment, zip: yauzl.ZipFile, entry: yauzl.Entry, destRel: string): Promise<void> {
  const name = yauzl.getFileNameLowLevel(entry.generalPurposeBitFlag, entry.fileNameRaw, entry.extraFields, false);
  const unixMode = (entry.externalFileAttributes >>> 16) & 0xffff;
  const fmt = unixMode & S_IFMT;
  if (name.endsWith('/') || fmt === S_IFDIR || fmt === S_IFLNK) return;
  const abs = landing(dep, destRel, name);
  if (abs === null) return;
  const perm = unixMode & 0o7777 || 0o644;
  await mkdir(path.dirname(abs), { recursive: true });
  const tmp = path.join(path.dirname(abs), `.${path.basename(abs)}.${randomBytes(4).toString('hex')}.partial`);
  try {
    await pipeline(await zip.openReadStreamPromise(entry), createWriteStream(tmp, { mode: perm }));
    await chmod(tmp, perm);
    const mtime = entry.getLastModDate();
    await utimes(tmp, mtime, mtime);
    await rename(tmp, abs);
  } catch (err) {
    await rm(tmp, { force: true });
    throw err;
  }
}

async function decompress(ctx: Ctx, dep: EmulatedDeployment): Promise<DecompressResult> {
  const body = await ctx.body();
  const root = optString(body, 'root') ?? '';
  const file = reqString(body, 'file');
  const removeArchive = optBool(body, 'removeArchive') ?? false;
  const { abs } = dep.volume.resolve(file, { base: root });
  try {
    if (!statSync(abs).isFile()) throw badRequest(`${file} is not a file`, 'not_a_file');
  } catch (err) {
    throw fromFsError(err, file);
  }
  const kind = archiveKindOf(abs);
  if (!kind) throw badRequest(`${file}: unsupported archive format; use .zip, .tar, .tar.gz or .tgz`, 'unsupported_archive');
  // Wings extracts into `root` (DecompressFile(ctx, dir, file)), not beside the archive.
  const destDir = dep.volume.resolve('.', { base: root }).abs;
  try {
    if (kind === 'zip') await extractZip(dep, abs, destDir);
    else await extractTar(dep, abs, destDir);
  } catch (err) {
    if (err instanceof ApiError) throw err;
    const code = (err as NodeJS.ErrnoException).code;
    if (code && code.startsWith('E') && code !== 'EOF') throw fromFsError(err, file);
    throw badRequest(`${file} is not a readable ${kind} archive: ${(err as Error).message}`, 'invalid_archive');
  }
  if (removeArchive) await unlink(abs);
  return { ok: true, archiveRemoved: removeArchive };
}

export const archiveRoutes: Route[] = [
  depRoute('POST', '/deployments/:id/files/compress', 'files.compress', 'files:write', compress),
  depRoute('POST', '/deployments/:id/files/decompress', 'files.decompress', 'files:write', decompress),
];

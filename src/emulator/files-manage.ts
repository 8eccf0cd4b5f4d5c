/**
 * Structural file operations: files.delete, rename, move, copy, mkdir, chmod.
 * Paths are checked before anything is touched: one escaping path refuses the
 * whole call with 404 (touches nothing).
 */
import { lstatSync, statSync, type Stats } from 'node:fs';
import { chmod as fsChmod, copyFile, mkdir as fsMkdir, rename as fsRename, rm, unlink } from 'node:fs/promises';
import path from 'node:path';
import type { DeleteResult, MoveResult, OkResult } from '../api/types.js';
import { depRoute, type Ctx, type Route } from './context.js';
import type { EmulatedDeployment } from './deployment.js';
import { badRequest, fromFsError, notFound } from './errors.js';
import { optString, reqString, reqStringArray } from './validate.js';
import { Volume, type Resolved } from './volume.js';

function lstatOrNull(abs: string): Stats | null {
  try {
    return lstatSync(abs);
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code;
    if (code === 'ENOENT' || code === 'ENOTDIR') return null;
    throw err;
  }
}

function refuseRoot(r: Resolved, shown: string, what: string): void {
  if (r.rel === '') throw badRequest(`cannot ${what} the volume root (${shown || '/'})`, 'volume_root');
}

/** `to` inside `from` (moving a folder into itself). */
function isInside(parent: string, child: string): boolean {
  return child === parent || child.startsWith(parent + path.sep);
}

async function del(ctx: Ctx, dep: EmulatedDeployment): Promise<DeleteResult> {
  const body = await ctx.body();
  const root = optString(body, 'root') ?? '';
  const files = reqStringArray(body, 'files');
  // Resolve all first: an escaping path refuses the call before any deletion.
  const targets = files.map((f) => {
    const r = dep.volume.resolve(f, { base: root, follow: false });
    refuseRoot(r, f, 'delete');
    return { shown: f, ...r };
  });
  let deleted = 0;
  for (const t of targets) {
    try {
      const st = lstatOrNull(t.abs);
      if (!st) continue; // missing entries are skipped, not counted
      if (st.isDirectory()) {
        // A deleted folder is gone for good: no history for what it held.
        await rm(t.abs, { recursive: true, force: true });
      } else {
        if (st.isFile()) await dep.history.save(dep.volume.relOf(t.abs), t.abs);
        await unlink(t.abs);
      }
      deleted++;
    } catch (err) {
      throw fromFsError(err, t.shown);
    }
  }
  return { ok: true, deleted };
}

async function rename(ctx: Ctx, dep: EmulatedDeployment): Promise<OkResult> {
  const body = await ctx.body();
  const root = optString(body, 'root') ?? '';
  const fromShown = reqString(body, 'from');
  const toShown = reqString(body, 'to');
  const from = dep.volume.resolve(fromShown, { base: root, follow: false });
  const to = dep.volume.resolve(toShown, { base: root, follow: false });
  refuseRoot(from, fromShown, 'rename');
  refuseRoot(to, toShown, 'rename onto');
  const st = lstatOrNull(from.abs);
  if (!st) throw notFound(`path not found: ${fromShown}`);
  // Wings: renaming onto an existing file fails; nothing changes.
  if (lstatOrNull(to.abs)) throw badRequest('destination already exists', 'destination_exists');
  if (st.isDirectory() && isInside(from.abs, to.abs)) throw badRequest(`cannot move ${fromShown} into itself`, 'invalid_destination');
  try {
    await fsMkdir(path.dirname(to.abs), { recursive: true });
    if (st.isFile()) await dep.history.save(dep.volume.relOf(from.abs), from.abs);
    await fsRename(from.abs, to.abs);
  } catch (err) {
    throw fromFsError(err, toShown);
  }
  return { ok: true };
}

async function move(ctx: Ctx, dep: EmulatedDeployment): Promise<MoveResult> {
  const body = await ctx.body();
  const files = reqStringArray(body, 'files');
  const toShown = reqString(body, 'to', { allowEmpty: true });
  const dest = dep.volume.resolve(toShown);
  const sources = files.map((f) => ({ shown: f, ...dep.volume.resolve(f, { follow: false }) }));
  const destSt = lstatOrNull(dest.abs);
  if (destSt && !destSt.isDirectory()) throw badRequest(`destination ${toShown} is not a directory`, 'not_a_directory');
  try {
    await fsMkdir(dest.abs, { recursive: true });
  } catch (err) {
    throw fromFsError(err, toShown);
  }
  const moved: MoveResult['moved'] = [];
  const failed: MoveResult['failed'] = [];
  for (const s of sources) {
    if (s.rel === '') {
      failed.push({ from: s.shown, reason: 'cannot move the volume root' });
      continue;
    }
    const st = lstatOrNull(s.abs);
    if (!st) {
      failed.push({ from: s.shown, reason: 'source not found' });
      continue;
    }
    const target = path.join(dest.abs, path.basename(s.abs));
    if (target === s.abs) {
      failed.push({ from: s.shown, reason: 'already in the destination' });
      continue;
    }
    if (st.isDirectory() && isInside(s.abs, target)) {
      failed.push({ from: s.shown, reason: 'cannot move a folder into itself' });
      continue;
    }
    // Never overwrites: a taken name is reported, the file there is left as it was.
    if (lstatOrNull(target)) {
      failed.push({ from: s.shown, reason: 'destination already exists' });
      continue;
    }
    try {
      await fsRename(s.abs, target);
      moved.push({ from: s.shown, to: Volume.show(dep.volume.relOf(target)) });
    } catch (err) {
      failed.push({ from: s.shown, reason: fromFsError(err, s.shown).message });
    }
  }
  return { ok: failed.length === 0, moved, failed };
}

/**
 * Wings' naming: "a.txt" -> "a copy.txt", then "a copy 1.txt", "a copy 2.txt", ...;
 * ".tar.gz" counts as one extension.
 */
export function copyName(base: string, taken: (name: string) => boolean): string {
  const ext = base.endsWith('.tar.gz') ? '.tar.gz' : path.extname(base);
  const stem = base.slice(0, base.length - ext.length);
  for (let i = 0; i <= 50; i++) {
    const name = `${stem}${i === 0 ? ' copy' : ` copy ${i}`}${ext}`;
    if (!taken(name)) return name;
  }
  return `${stem} copy.${new Date().toISOString().replace(/:/g, '')}${ext}`;
}

async function copy(ctx: Ctx, dep: EmulatedDeployment): Promise<OkResult> {
  const body = await ctx.body();
  const shown = reqString(body, 'location');
  const src = dep.volume.resolve(shown);
  let st: Stats;
  try {
    st = statSync(src.abs);
  } catch (err) {
    throw fromFsError(err, shown);
  }
  if (!st.isFile()) throw badRequest(`${shown} is not a file; only files can be copied`, 'not_a_file');
  const dir = path.dirname(src.abs);
  const name = copyName(path.basename(src.abs), (n) => lstatOrNull(path.join(dir, n)) !== null);
  try {
    await copyFile(src.abs, path.join(dir, name), 1 /* COPYFILE_EXCL: never clobber */);
    await fsChmod(path.join(dir, name), st.mode & 0o7777);
  } catch (err) {
    throw fromFsError(err, shown);
  }
  return { ok: true };
}

async function mkdir(ctx: Ctx, dep: EmulatedDeployment): Promise<OkResult> {
  const body = await ctx.body();
  const root = optString(body, 'root') ?? '';
  const name = reqString(body, 'name');
  const r = dep.volume.resolve(name, { base: root });
  const st = lstatOrNull(r.abs);
  if (st && !st.isDirectory()) throw badRequest(`${name} exists and is not a folder`, 'destination_exists');
  try {
    await fsMkdir(r.abs, { recursive: true });
  } catch (err) {
    throw fromFsError(err, name);
  }
  return { ok: true };
}

async function chmod(ctx: Ctx, dep: EmulatedDeployment): Promise<OkResult> {
  const body = await ctx.body();
  const root = optString(body, 'root') ?? '';
  const file = reqString(body, 'file');
  const mode = body.mode;
  // Wings parses an octal string; anything else is a bad request.
  if (typeof mode !== 'string' || !/^[0-7]{3,4}$/.test(mode)) {
    throw badRequest('mode must be an octal string such as "0755" or "644"', 'invalid_mode');
  }
  const r = dep.volume.resolve(file, { base: root });
  try {
    await fsChmod(r.abs, parseInt(mode, 8));
  } catch (err) {
    throw fromFsError(err, file);
  }
  return { ok: true };
}

export const fileManageRoutes: Route[] = [
  depRoute('POST', '/deployments/:id/files/delete', 'files.delete', 'files:write', del, { destructive: true }),
  depRoute('POST', '/deployments/:id/files/rename', 'files.rename', 'files:write', rename),
  depRoute('POST', '/deployments/:id/files/move', 'files.move', 'files:write', move),
  depRoute('POST', '/deployments/:id/files/copy', 'files.copy', 'files:write', copy),
  depRoute('POST', '/deployments/:id/files/folder', 'files.mkdir', 'files:write', mkdir),
  depRoute('POST', '/deployments/:id/files/chmod', 'files.chmod', 'files:write', chmod),
];

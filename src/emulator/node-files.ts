/**
 * files.uploadUrl and files.downloadUrl, and the node-side routes their signed
 * URLs point at (outside /api/v1: no Bearer key, not rate limited, not counted).
 *
 * Upload: ONE multipart/form-data POST; each `files` part is streamed (busboy) to
 * a hidden temp file in the target folder and renamed into place when complete,
 * so a part is never held in memory whole and a failed part leaves nothing behind.
 * Only the part's own file name is used; a name with "/" or ".." is refused.
 */
import { createReadStream, createWriteStream, statSync } from 'node:fs';
import { mkdir, rename, rm } from 'node:fs/promises';
import type { IncomingMessage, ServerResponse } from 'node:http';
import path from 'node:path';
import { randomBytes } from 'node:crypto';
import { pipeline } from 'node:stream/promises';
import busboy from 'busboy';
import type { UploadUrlResult } from '../api/types.js';
import { depRoute, type Ctx, type EmulatorCore, type Route } from './context.js';
import type { EmulatedDeployment } from './deployment.js';
import { ApiError, badRequest, forbidden, fromFsError, tooLarge } from './errors.js';
import { sendError } from './http-io.js';
import { optString } from './validate.js';

async function uploadUrl(ctx: Ctx, dep: EmulatedDeployment): Promise<UploadUrlResult> {
  const body = await ctx.body();
  const shown = optString(body, 'path') ?? '/';
  const { abs } = dep.volume.resolve(shown);
  try {
    await mkdir(abs, { recursive: true });
  } catch (err) {
    throw fromFsError(err, shown);
  }
  const { token, expiresAt } = ctx.core.signed.issue({ kind: 'upload', deploymentId: dep.id, rel: dep.volume.relOf(abs) });
  return { url: `${ctx.core.baseUrl}/__node/upload/${token}`, field: 'files', expiresAt };
}

export const nodeFileRoutes: Route[] = [
  depRoute('POST', '/deployments/:id/files/upload-url', 'files.uploadUrl', 'files:write', uploadUrl),
];

const spent = (): ApiError => forbidden('upload URL already used or expired', 'url_expired');

/** A part's file name as the node accepts it: a plain name, nothing that walks folders. */
export function uploadName(name: string | undefined): string | null {
  if (!name || name.includes('/') || name.includes('\\') || name.includes('\0')) return null;
  if (name === '.' || name === '..') return null;
  return name;
}

/** Resolves a signed target against its deployment again at use: the folder may have changed since issue. */
function targetOf(core: EmulatorCore, deploymentId: string, rel: string): { dep: EmulatedDeployment; abs: string } {
  const dep = core.deployments.get(deploymentId);
  if (!dep) throw spent();
  return { dep, abs: dep.volume.resolve(rel).abs };
}

/** The node's answer to an upload; the server sends it (or drops the connection instead, for the `reset` fault). */
export interface UploadAnswer {
  status: number;
  body: unknown;
  headers?: Record<string, string>;
}

const answerOf = (err: ApiError, headers: Record<string, string> = {}): UploadAnswer => ({
  status: err.status,
  body: err.body(),
  headers: { ...headers, ...err.headers },
});

export async function handleUpload(core: EmulatorCore, token: string, req: IncomingMessage): Promise<UploadAnswer> {
  if (req.method !== 'POST') return answerOf(new ApiError(405, 'method_not_allowed', 'upload URLs accept POST only'), { Allow: 'POST' });
  const target = core.signed.consume('upload', token);
  if (!target) return answerOf(spent());
  const type = req.headers['content-type'] ?? '';
  if (!/^multipart\/form-data\b/i.test(type)) {
    return answerOf(badRequest('upload must be multipart/form-data with one or more "files" parts'));
  }
  let dir: string;
  try {
    dir = targetOf(core, target.deploymentId, target.rel).abs;
    await mkdir(dir, { recursive: true });
  } catch (err) {
    return answerOf(fromFsError(err, '/' + target.rel));
  }

  const limit = core.uploadMaxBytes;
  const landed: Array<{ name: string; bytes: number }> = [];
  const pending: Array<Promise<void>> = [];
  let failure: ApiError | null = null;
  let bb: busboy.Busboy;
  try {
    // preservePath: busboy would otherwise strip "../" silently; the node refuses such names outright.
    // defParamCharset: a browser's (and undici's) FormData sends the file name as raw UTF-8,
    // which the node (Go's mime/multipart) keeps as UTF-8; busboy would read it as latin1.
    bb = busboy({ headers: req.headers, preservePath: true, defParamCharset: 'utf8', limits: { fileSize: limit } });
  } catch {
    return answerOf(badRequest('malformed multipart/form-data request'));
  }

  bb.on('file', (field, stream, info) => {
    const name = uploadName(info.filename);
    if (field !== 'files' || failure) {
      stream.resume(); // other fields are not files the node keeps
      return;
    }
    if (name === null) {
      failure ??= badRequest(`invalid upload file name ${JSON.stringify(info.filename ?? '')}: a plain name without "/" or ".."`, 'invalid_name');
      stream.resume();
      return;
    }
    const final = path.join(dir, name);
    const tmp = path.join(dir, `.${name}.${randomBytes(4).toString('hex')}.upload`);
    pending.push(
      (async () => {
        try {
          await pipeline(stream, createWriteStream(tmp));
          // busboy stops a part at the limit and flags it; such a part is not kept.
          if ((stream as unknown as { truncated?: boolean }).truncated) {
            await rm(tmp, { force: true });
            failure ??= tooLarge(`${name} exceeds the node's upload limit of ${limit} bytes`);
            return;
          }
          try {
            if (statSync(final).isDirectory()) throw badRequest(`${name} is a folder in the target directory`, 'is_a_directory');
          } catch (err) {
            if ((err as NodeJS.ErrnoException).code !== 'ENOENT') throw err;
          }
          await rename(tmp, final);
          landed.push({ name, bytes: statSync(final).size });
        } catch (err) {
          await rm(tmp, { force: true });
          failure ??= fromFsError(err, name);
        }
      })(),
    );
  });

  try {
    await pipeline(req, bb);
  } catch {
    failure ??= badRequest('malformed multipart/form-data request');
  }
  await Promise.all(pending);
  if (failure) return answerOf(failure);
  if (landed.length === 0) return answerOf(badRequest('no "files" part in the upload'));
  return { status: 200, body: { ok: true, files: landed } };
}

/** `drop`: the `reset` fault after the token was spent, so the client is left with a used URL and no bytes. */
export async function handleDownload(core: EmulatorCore, token: string, req: IncomingMessage, res: ServerResponse, drop: boolean): Promise<void> {
  if (req.method !== 'GET') return sendError(res, new ApiError(405, 'method_not_allowed', 'download URLs accept GET only'), { Allow: 'GET' });
  const target = core.signed.consume('download', token);
  if (drop) {
    res.socket?.destroy();
    return;
  }
  if (!target) return sendError(res, forbidden('download URL already used or expired', 'url_expired'));
  let abs: string;
  let size: number;
  try {
    abs = targetOf(core, target.deploymentId, target.rel).abs;
    const st = statSync(abs);
    if (!st.isFile()) throw badRequest('not a file', 'not_a_file');
    size = st.size;
  } catch (err) {
    return sendError(res, fromFsError(err, '/' + target.rel));
  }
  res.writeHead(200, {
    'Content-Type': 'application/octet-stream',
    'Content-Length': String(size),
    'Content-Disposition': `attachment; filename="${path.basename(abs).replace(/["\\\r\n]/g, '_')}"`,
  });
  try {
    await pipeline(createReadStream(abs), res);
  } catch {
    res.destroy();
  }
}

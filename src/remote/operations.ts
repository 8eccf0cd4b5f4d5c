/**
 * The endpoints hostsync calls, named as hosting-api.md names them, with what the
 * client needs to know about each: method, path, the scope a 403 should name,
 * whether repeating it is harmless, and whether it counts against the API rate limit.
 *
 * Idempotent means "doing it twice leaves the same state as once", so a call whose
 * answer was lost may be repeated. Non-idempotent calls (move, rename, decompress,
 * compress, apply, power, restore, append, upload) are never repeated once sent.
 */

export type HttpMethod = 'GET' | 'POST' | 'PATCH' | 'DELETE';

export interface Operation {
  name: string;
  method: HttpMethod;
  /** Path under {base_url}/api/v1; `:id` is the deployment. Empty for signed node URLs. */
  path: string;
  scope: string;
  idempotent: boolean;
  /**
   * Whether the call goes through the API (and its 120/min budget). Transfers to
   * signed node URLs (upload, download) do not.
   */
  rateLimited: boolean;
}

function op(name: string, method: HttpMethod, path: string, scope: string, idempotent: boolean): Operation {
  return { name, method, path, scope, idempotent, rateLimited: true };
}

export const OPERATIONS = {
  filesIndex: op('files.index', 'POST', '/deployments/:id/files/index', 'files:read', true),
  filesList: op('files.list', 'GET', '/deployments/:id/files', 'files:read', true),
  filesRead: op('files.read', 'GET', '/deployments/:id/files/content', 'files:read', true),
  filesReadMany: op('files.readMany', 'POST', '/deployments/:id/files/read-many', 'files:read', true),
  filesDownloadUrl: op('files.downloadUrl', 'GET', '/deployments/:id/files/download-url', 'files:read', true),
  filesHistory: op('files.history', 'GET', '/deployments/:id/files/history', 'files:read', true),
  filesRestore: op('files.restore', 'POST', '/deployments/:id/files/restore', 'files:write', false),
  /** Idempotent only with mode overwrite; append callers override. */
  filesWrite: op('files.write', 'POST', '/deployments/:id/files/content', 'files:write', true),
  /** Idempotent only when every item overwrites; callers override. */
  filesWriteMany: op('files.writeMany', 'POST', '/deployments/:id/files/writeMany', 'files:write', true),
  /** An exact-match replace: the base record's compare-and-swap. Never repeated once sent (a repeat finds its snippet gone). */
  filesEdit: op('files.edit', 'POST', '/deployments/:id/files/edit', 'files:write', false),
  filesDelete: op('files.delete', 'POST', '/deployments/:id/files/delete', 'files:write', true),
  filesMove: op('files.move', 'POST', '/deployments/:id/files/move', 'files:write', false),
  filesRename: op('files.rename', 'POST', '/deployments/:id/files/rename', 'files:write', false),
  filesChmod: op('files.chmod', 'POST', '/deployments/:id/files/chmod', 'files:write', true),
  filesCompress: op('files.compress', 'POST', '/deployments/:id/files/compress', 'files:write', false),
  filesDecompress: op('files.decompress', 'POST', '/deployments/:id/files/decompress', 'files:write', false),
  filesUploadUrl: op('files.uploadUrl', 'POST', '/deployments/:id/files/upload-url', 'files:write', true),
  /** The multipart POST to the signed URL uploadUrl returned: straight to the node, outside the API budget. */
  filesUpload: { name: 'files.upload', method: 'POST', path: '', scope: 'files:write', idempotent: false, rateLimited: false },
  /** The GET of the signed URL downloadUrl returned: single-use, outside the API budget. */
  filesDownload: { name: 'files.download', method: 'GET', path: '', scope: 'files:read', idempotent: true, rateLimited: false },

  deploymentsList: op('deployments.list', 'GET', '/deployments', 'deployments:read', true),
  deploymentsGet: op('deployments.get', 'GET', '/deployments/:id', 'deployments:read', true),
  deploymentsApply: op('deployments.apply', 'POST', '/deployments/:id/apply', 'deployments:write', false),
  deploymentsDiagnose: op('deployments.diagnose', 'GET', '/deployments/:id/diagnose', 'deployments:read', true),
  deploymentsLogs: op('deployments.logs', 'GET', '/deployments/:id/logs', 'deployments:read', true),
  deploymentsSearchLogs: op('deployments.searchLogs', 'GET', '/deployments/:id/logs/search', 'deployments:read', true),
  deploymentsPower: op('deployments.power', 'POST', '/deployments/:id/power', 'deployments:power', false),
  deploymentsCheck: op('deployments.check', 'GET', '/deployments/:id/check', 'deployments:read', true),
  deploymentsResources: op('deployments.resources', 'GET', '/deployments/:id/resources', 'deployments:read', true),
  /** Renames; doctor sends the current name back to learn whether the key holds deployments:write without changing anything. */
  deploymentsUpdate: op('deployments.update', 'PATCH', '/deployments/:id', 'deployments:write', true),
  deploymentsShell: op('deployments.shell', 'POST', '/deployments/:id/shell', 'deployments:shell', false),
  /** Not repeated on an unknown outcome: it queues a rebuild, and with wipeFiles deletes every file. */
  deploymentsUpdateStartup: op('deployments.updateStartup', 'PATCH', '/deployments/:id/startup', 'deployments:write', false),
  /** The same size twice is the same size (the restart it causes is the one asked for). */
  deploymentsResize: op('deployments.resize', 'PATCH', '/deployments/:id/resize', 'deployments:write', true),
  /** A repeat would make a second deployment. */
  deploymentsCreate: op('deployments.create', 'POST', '/deployments', 'deployments:write', false),

  envList: op('env.list', 'GET', '/deployments/:id/env', 'env:read', true),
  /** Creates or updates: setting the same value twice leaves the same state. */
  envSet: op('env.set', 'POST', '/deployments/:id/env', 'env:write', true),
  envUpdate: op('env.update', 'PATCH', '/deployments/:id/env/:key', 'env:write', true),
  envDelete: op('env.delete', 'DELETE', '/deployments/:id/env/:key', 'env:write', true),
  envAudit: op('env.audit', 'GET', '/deployments/:id/env/audit', 'env:read', true),

  accountGet: op('account.get', 'GET', '/account', 'account:read', true),
} satisfies Record<string, Operation>;

export function apiPath(o: Operation, deploymentId: string): string {
  return o.path.replace(':id', encodeURIComponent(deploymentId));
}

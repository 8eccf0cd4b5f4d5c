/**
 * The emulator's error answers. Every failure leaves the server as
 * `{"error": "<one clear line>", "code": "<snake_case>"}` with a proper status,
 * so a client exercising its tolerant error parsing sees a realistic body.
 * Messages name volume-relative paths only, never absolute host paths or keys.
 */

export class ApiError extends Error {
  constructor(
    readonly status: number,
    readonly code: string,
    message: string,
    /** Extra response headers (Retry-After on 429). */
    readonly headers: Record<string, string> = {},
  ) {
    super(message);
    this.name = 'ApiError';
  }

  body(): { error: string; code: string } {
    return { error: this.message, code: this.code };
  }
}

export const badRequest = (message: string, code = 'bad_request'): ApiError => new ApiError(400, code, message);
export const unauthorized = (message: string): ApiError => new ApiError(401, 'unauthorized', message);
export const forbidden = (message: string, code = 'forbidden'): ApiError => new ApiError(403, code, message);
export const notFound = (message: string, code = 'not_found'): ApiError => new ApiError(404, code, message);
export const conflict = (message: string, code = 'conflict'): ApiError => new ApiError(409, code, message);
export const tooLarge = (message: string): ApiError => new ApiError(413, 'payload_too_large', message);

/** What every path that leaves the volume answers: the same 404 as a missing file, so probing learns nothing. */
export const escapesVolume = (shown: string): ApiError =>
  notFound(`path not found: ${shown}`, 'not_found');

/**
 * Turns a Node fs error into an ApiError without leaking the absolute path
 * (fs messages embed it). `shown` is the volume-relative path the caller named.
 */
export function fromFsError(err: unknown, shown: string): ApiError {
  if (err instanceof ApiError) return err;
  const code = (err as NodeJS.ErrnoException | undefined)?.code;
  switch (code) {
    case 'ENOENT':
      return notFound(`path not found: ${shown}`);
    case 'ENOTDIR':
      return badRequest(`a parent of ${shown} is not a directory`, 'not_a_directory');
    case 'EISDIR':
      return badRequest(`${shown} is a directory`, 'is_a_directory');
    case 'EEXIST':
    case 'ENOTEMPTY':
      return badRequest(`destination already exists: ${shown}`, 'destination_exists');
    case 'ELOOP':
      return notFound(`path not found: ${shown}`);
    case 'EACCES':
    case 'EPERM':
      return forbidden(`permission denied on ${shown}`, 'permission_denied');
    default:
      return new ApiError(500, 'internal', `file operation failed on ${shown}: ${code ?? 'unknown error'}`);
  }
}

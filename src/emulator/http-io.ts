/** Reading JSON requests and writing JSON answers, strictly. */
import type { IncomingMessage, ServerResponse } from 'node:http';
import { EMULATOR_JSON_BODY_MAX_BYTES } from './tunables.js';
import { ApiError, badRequest, tooLarge } from './errors.js';

/**
 * The request's JSON body ({} when empty). The document says bodies are JSON, so a
 * non-empty body must say `Content-Type: application/json`; anything else is 415.
 */
export async function readJsonBody(req: IncomingMessage): Promise<unknown> {
  const declared = Number(req.headers['content-length'] ?? '0');
  if (declared > EMULATOR_JSON_BODY_MAX_BYTES) throw tooLarge(`request body over ${EMULATOR_JSON_BODY_MAX_BYTES} bytes`);
  const chunks: Buffer[] = [];
  let total = 0;
  for await (const chunk of req) {
    total += (chunk as Buffer).length;
    if (total > EMULATOR_JSON_BODY_MAX_BYTES) throw tooLarge(`request body over ${EMULATOR_JSON_BODY_MAX_BYTES} bytes`);
    chunks.push(chunk as Buffer);
  }
  if (total === 0) return {};
  const type = (req.headers['content-type'] ?? '').split(';')[0]!.trim().toLowerCase();
  if (type !== 'application/json') {
    throw new ApiError(415, 'unsupported_media_type', 'request body must be JSON with Content-Type: application/json');
  }
  try {
    return JSON.parse(Buffer.concat(chunks, total).toString('utf8'));
  } catch {
    throw badRequest('request body is not valid JSON', 'invalid_json');
  }
}

export function sendJson(res: ServerResponse, status: number, body: unknown, headers: Record<string, string> = {}): void {
  if (res.headersSent || res.destroyed) return;
  const text = JSON.stringify(body);
  res.writeHead(status, {
    ...headers,
    'Content-Type': 'application/json; charset=utf-8',
    'Content-Length': String(Buffer.byteLength(text)),
  });
  res.end(text);
}

export function sendError(res: ServerResponse, err: ApiError, headers: Record<string, string> = {}): void {
  sendJson(res, err.status, err.body(), { ...headers, ...err.headers });
}

export const sleep = (ms: number): Promise<void> => new Promise((r) => setTimeout(r, ms));

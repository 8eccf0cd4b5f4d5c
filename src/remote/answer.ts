/**
 * The client's check of an answer's shape (api/schemas.ts): the typed result, or one
 * ApiError "unexpected answer from the service to <operation>: <what is wrong>". Nothing
 * else escapes: a malformed answer must never surface as a TypeError further in, nor
 * pass as data (an index without entries read as an empty volume).
 */
import * as v from 'valibot';
import { PLAIN_CHECKS, type AnswerSchema } from '../api/schemas.js';
import { ApiError, UNEXPECTED_ANSWER, tidyServerText } from './errors.js';
import type { Redactor } from './redact.js';

/** Longest quote of a received value: enough to recognise it, never a page of it. */
const RECEIVED_MAX_CHARS = 40;

export function checkAnswer<T>(
  operation: string,
  schema: AnswerSchema<T>,
  body: unknown,
  ctx: { status: number; host?: string; redactor?: Redactor },
): T {
  const plain = PLAIN_CHECKS.get(schema)?.(body);
  if (plain !== undefined && plain !== null) return plain as T;
  const r = v.safeParse(schema, body, { abortEarly: true });
  if (r.success) return r.output as T;
  const issue = r.issues[0];
  const what = ctx.redactor ? ctx.redactor.text(describeIssue(issue)) : describeIssue(issue);
  return failAnswer(operation, what, ctx);
}

/** The error for an answer that is not what the contract says (also: a body that is not JSON at all). */
export function failAnswer(operation: string, what: string, ctx: { status: number; host?: string }): never {
  throw new ApiError(`unexpected answer from the service to ${operation}: ${what}`, {
    operation, status: ctx.status, serverMessage: what, retryable: false, code: UNEXPECTED_ANSWER, host: ctx.host,
  });
}

/** One issue as "entries[3].sizeBytes: expected number, got \"12\"". */
function describeIssue(issue: v.BaseIssue<unknown> | undefined): string {
  if (!issue) return 'it does not match the documented shape';
  const where = pathOf(issue);
  const got = quote(issue.received);
  let text: string;
  if (issue.kind === 'schema' && issue.received === 'undefined' && where) text = 'missing';
  else if (issue.type === 'check') text = issue.message;
  else if (issue.type === 'integer') text = `expected a whole number, got ${got}`;
  else if (issue.expected === 'Object') text = `expected an object, got ${got}`;
  else if (issue.expected === 'Array') text = `expected a list, got ${got}`;
  else if (issue.expected) text = `expected ${issue.expected}, got ${got}`;
  else text = issue.message;
  // A check names its own field.
  return where && issue.type !== 'check' ? `${where}: ${text}` : text;
}

function pathOf(issue: v.BaseIssue<unknown>): string {
  let out = '';
  for (const item of issue.path ?? []) {
    const key = item.key;
    if (typeof key === 'number') out += `[${key}]`;
    else if (typeof key === 'string' && /^[A-Za-z_$][\w$]*$/.test(key)) out += out ? `.${key}` : key;
    else out += `[${JSON.stringify(String(key))}]`;
  }
  return out;
}

/** valibot's `received` (a string comes quoted): an HTML page loses its markup, and a long value is cut. */
function quote(received: string): string {
  const quoted = received.length >= 2 && received.startsWith('"') && received.endsWith('"');
  const t = tidyServerText(quoted ? received.slice(1, -1) : received);
  const cut = t.length > RECEIVED_MAX_CHARS ? `${t.slice(0, RECEIVED_MAX_CHARS - 1)}…` : t;
  return quoted ? `"${cut}"` : cut;
}

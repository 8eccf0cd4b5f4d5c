/**
 * The one error type every remote call fails with.
 *
 * Invariants:
 * - No message, serverMessage or field ever contains the API key: every text that
 *   could echo it (server bodies, low-level causes) passes through a Redactor first.
 * - `retryable` answers "is repeating this exact call safe?", not "will it work".
 * - `status` is the HTTP status, or 0 when no HTTP answer arrived (network).
 */

import type { Operation } from './operations.js';
import type { Redactor } from './redact.js';

/** Where keys are made; repeated in every auth error so the fix is in the message. */
export const KEY_SETTINGS_HINT = "API keys are created and managed in the account's developer settings";

export interface ApiErrorInit {
  operation: string;
  status: number;
  serverMessage: string;
  retryable: boolean;
  code?: string | undefined;
  /** host:port the request went to (never a full signed URL: its token is a credential). */
  host?: string | undefined;
  cause?: unknown;
  /**
   * Wait this long before repeating: a 429 whose wait the API queue did not absorb
   * (signed node URLs spend no API budget, so their 429 must not pause API calls).
   */
  retryAfterMs?: number | undefined;
}

export class ApiError extends Error {
  readonly operation: string;
  /** HTTP status; 0 = no HTTP answer (network error). */
  readonly status: number;
  /** The server's own words, parsed tolerantly; for network errors, what failed. */
  readonly serverMessage: string;
  readonly retryable: boolean;
  /** The server's error code, or for network errors the system/undici code (ECONNREFUSED...). */
  readonly code: string | undefined;
  readonly host: string | undefined;
  readonly retryAfterMs: number | undefined;

  constructor(message: string, init: ApiErrorInit) {
    super(message, init.cause === undefined ? undefined : { cause: init.cause });
    this.name = 'ApiError';
    this.operation = init.operation;
    this.status = init.status;
    this.serverMessage = init.serverMessage;
    this.retryable = init.retryable;
    this.code = init.code;
    this.host = init.host;
    this.retryAfterMs = init.retryAfterMs;
  }

  /** The same failure with `note` appended to its message (e.g. how many attempts were made). */
  withNote(note: string): ApiError {
    const init: ApiErrorInit = {
      operation: this.operation, status: this.status, serverMessage: this.serverMessage, retryable: this.retryable,
      code: this.code, host: this.host, cause: this.cause, retryAfterMs: this.retryAfterMs,
    };
    const text = `${/[.?!]$/.test(this.message) ? this.message : `${this.message}.`} ${note}`;
    return this instanceof OutcomeUnknownError ? new OutcomeUnknownError(text, init) : new ApiError(text, init);
  }
}

/**
 * A non-idempotent call (move, rename, decompress, apply, upload...) whose request
 * left this machine but whose answer never came (or came as a 5xx). It may or may
 * not have taken effect; repeating it blindly could do it twice. The engine must
 * re-read the remote and re-plan.
 */
export class OutcomeUnknownError extends ApiError {
  constructor(message: string, init: Omit<ApiErrorInit, 'retryable'>) {
    super(message, { ...init, retryable: false });
    this.name = 'OutcomeUnknownError';
  }
}

/**
 * ApiError.code of an answer whose shape is not the contract's (answer.ts): a failure
 * (exit 1), never retried (the same server would answer the same) and never taken as data.
 */
export const UNEXPECTED_ANSWER = 'unexpected_answer';

/**
 * ApiError.code of an answer that did not come from the API at all: a web page (a CDN's
 * challenge, a captive portal, a wrong --base-url landing on a website) or a body that
 * is not JSON. Its own exit code (EXIT.notApi, issue 30): neither the key nor the files are at
 * fault, and retrying the same address meets the same page.
 */
export const NOT_THE_API = 'not_the_api';

/** Characters of a foreign body quoted in the error: enough to recognise the page. */
const FOREIGN_QUOTE_CHARS = 80;

/** The <title> of an HTML page, tidied, or ''. */
function pageTitle(html: string): string {
  const m = /<title[^>]*>([\s\S]*?)<\/title\s*>/i.exec(html);
  return m ? tidyServerText(m[1]!) : '';
}

function headerText(v: string | string[] | undefined): string {
  return (Array.isArray(v) ? v[0] : v) ?? '';
}

/**
 * The error for an answer that is not the API's, or null when it may be: a body the
 * transport could not parse as JSON (it hands such bodies over as text) and that does
 * not even claim to be JSON. An empty body
 * is left to the usual handling (a bare 204/404 is the API's). A 5xx page is left too:
 * a proxy's 502 in front of a restarting service is transient, and errorFromResponse
 * retries it; so is a 429 (always waited out).
 */
export function notTheApiError(
  op: Operation,
  status: number,
  headers: Record<string, string | string[] | undefined>,
  body: unknown,
  host: string | undefined,
): ApiError | null {
  if (typeof body !== 'string' || body.trim() === '' || status >= 500 || status === 429) return null;
  const type = headerText(headers['content-type']).split(';')[0]!.trim().toLowerCase();
  // Declared JSON that does not parse is the API's own broken answer (answer.ts says so), not a stranger's.
  if (type.includes('json')) return null;
  const html = type === 'text/html' || type === 'application/xhtml+xml' || /^\s*<(!doctype\s+html|html[\s>]|head[\s>]|body[\s>])/i.test(body);
  const init = { operation: op.name, status, retryable: false, code: NOT_THE_API, host };
  if (html) {
    const title = pageTitle(body);
    const serverMessage = title ? `a web page titled "${title}"` : 'a web page';
    return new ApiError(
      `${op.name}: the address answered a web page, not the API (HTTP ${status}${title ? `, "${title}"` : ''}): a proxy or challenge in front of it, or a wrong --base-url`,
      { ...init, serverMessage },
    );
  }
  const quoted = tidyServerText(body);
  const cut = quoted.length > FOREIGN_QUOTE_CHARS ? `${quoted.slice(0, FOREIGN_QUOTE_CHARS - 1)}…` : quoted;
  return new ApiError(
    `${op.name}: the address answered ${type || 'a body'} that is not JSON, not the API (HTTP ${status}: "${cut}"): a proxy in front of it, or a wrong --base-url`,
    { ...init, serverMessage: cut },
  );
}

/**
 * The note for a 401/403 without X-RateLimit-Remaining, which the API puts on every
 * answer: the refusal may come from something in front of it (a gateway, a firewall).
 */
export const NO_RATE_HEADER_NOTE =
  'The answer carried no X-RateLimit-Remaining, which every answer of the API carries: if the key is right, something in front of the API (a proxy, a firewall) refused the request.';

/** The code of every error caused by HostingClient.destroy(). */
export const CANCELLED_CODE = 'ECANCELLED';
const CANCELLED_TEXT = 'cancelled: hostsync is shutting down';

/**
 * The error for a call cut short by HostingClient.destroy(). `sent`: the request was on
 * the wire, so a call that is not safe to repeat may or may not have taken effect.
 */
export function cancelledError(operation: string, opts: { sent?: boolean; idempotent?: boolean; host?: string } = {}): ApiError {
  const init = { operation, status: 0, serverMessage: CANCELLED_TEXT, code: CANCELLED_CODE, host: opts.host };
  if (opts.sent && opts.idempotent === false) {
    return new OutcomeUnknownError(
      `${operation}: ${CANCELLED_TEXT}; the request was already sent and may or may not have taken effect. ` +
        'Re-read the remote before retrying.',
      init,
    );
  }
  return new ApiError(`${operation}: ${CANCELLED_TEXT}.`, { ...init, retryable: false });
}

/**
 * A 429 whose Retry-After is far beyond the window: not our pacing's fault (another
 * tool is spending the key, or the service is throttling it). Waiting silently for an
 * hour looks like a hang, so the call fails at once and says when to come back.
 */
export function rateLimitTooLongError(operation: string, waitMs: number, wallNowMs: number, host?: string): ApiError {
  const seconds = Math.ceil(waitMs / 1000);
  const at = new Date(wallNowMs + waitMs);
  // Round up to the next whole minute: "after HH:MM" must not be a minute too early.
  if (at.getSeconds() > 0 || at.getMilliseconds() > 0) at.setSeconds(60, 0);
  const hhmm = `${String(at.getHours()).padStart(2, '0')}:${String(at.getMinutes()).padStart(2, '0')}`;
  return new ApiError(
    `${operation}: rate limited by the service for ${seconds} s (another tool using this key?); try again after ${hhmm}.`,
    { operation, status: 429, serverMessage: `Retry-After ${seconds} s`, retryable: false, code: 'rate_limited_long', host },
  );
}

/** Longest server text quoted in a message: enough for a sentence, not for a page. */
const SERVER_TEXT_MAX_CHARS = 200;

/**
 * Server text made fit for a one-line message: an HTML error page (a proxy's 502) loses
 * its markup, whitespace runs become one space, and it is cut to SERVER_TEXT_MAX_CHARS.
 */
export function tidyServerText(text: string): string {
  let t = text;
  if (/<[a-z!/][^>]*>/i.test(t)) {
    t = t
      .replace(/<(script|style)\b[^>]*>[\s\S]*?<\/\1\s*>/gi, ' ')
      .replace(/<!--[\s\S]*?-->/g, ' ')
      .replace(/<[^>]*>/g, ' ')
      .replace(/&nbsp;/gi, ' ')
      .replace(/&lt;/gi, '<')
      .replace(/&gt;/gi, '>')
      .replace(/&quot;/gi, '"')
      .replace(/&#39;/g, "'")
      .replace(/&amp;/gi, '&');
  }
  t = t.replace(/\s+/g, ' ').trim();
  return t.length > SERVER_TEXT_MAX_CHARS ? `${t.slice(0, SERVER_TEXT_MAX_CHARS - 1).trimEnd()}…` : t;
}

/**
 * The server's message from an error body, whatever its shape: `{error}`,
 * `{message}`, `{errors:[{detail}]}`, `{error:{message}}`, or plain text.
 */
export function parseServerMessage(body: unknown): { message: string; code: string | undefined } {
  const found = rawServerMessage(body);
  return { message: tidyServerText(found.message), code: found.code };
}

function rawServerMessage(body: unknown): { message: string; code: string | undefined } {
  if (typeof body === 'string') return { message: body, code: undefined };
  if (body === null || typeof body !== 'object') return { message: '', code: undefined };
  const o = body as Record<string, unknown>;
  const code = typeof o.code === 'string' ? o.code : undefined;
  if (typeof o.error === 'string' && o.error) return { message: o.error, code };
  if (o.error && typeof o.error === 'object') {
    const inner = rawServerMessage(o.error);
    if (inner.message) return { message: inner.message, code: code ?? inner.code };
  }
  if (typeof o.message === 'string' && o.message) return { message: o.message, code };
  if (Array.isArray(o.errors) && o.errors.length > 0) {
    const first = o.errors[0] as Record<string, unknown> | null;
    if (first && typeof first === 'object') {
      const detail = first.detail ?? first.message ?? first.title;
      const firstCode = typeof first.code === 'string' ? first.code : undefined;
      if (typeof detail === 'string') return { message: detail, code: code ?? firstCode };
    }
  }
  return { message: '', code };
}

/** Builds the error for an HTTP answer that is not 2xx. 429 is handled before this (it is always retried). */
export function errorFromResponse(
  op: Operation,
  status: number,
  body: unknown,
  ctx: { host: string; deploymentId: string; redactor: Redactor; idempotent: boolean; retryAfterMs?: number | undefined; noRateHeader?: boolean },
): ApiError {
  const parsed = parseServerMessage(body);
  const serverMessage = ctx.redactor.text(parsed.message);
  const said = serverMessage ? ` Server said: "${serverMessage}".` : '';
  const init = { operation: op.name, status, serverMessage, code: parsed.code, host: ctx.host };

  const foreign = ctx.noRateHeader ? ` ${NO_RATE_HEADER_NOTE}` : '';
  if (status === 401) {
    return new ApiError(
      `${op.name}: the service rejected the API key (401): it is missing, mistyped, expired or revoked. ` +
        `${KEY_SETTINGS_HINT}; set a valid one in HOSTSYNC_API_KEY.${said}${foreign}`,
      { ...init, retryable: false },
    );
  }
  if (status === 403) {
    return new ApiError(
      `${op.name}: the API key is not allowed to do this (403). It needs the scope "${op.scope}", and its user needs ` +
        `access to deployment ${ctx.deploymentId}. ${KEY_SETTINGS_HINT}: create a key with the "${op.scope}" scope there.${said}${foreign}`,
      { ...init, retryable: false },
    );
  }
  if (status === 429) {
    // Whether waits came before is for the retry layer to add (withRetry notes them).
    return new ApiError(`${op.name}: rate limited by the service (429).${said}`, {
      ...init, retryable: true, retryAfterMs: ctx.retryAfterMs,
    });
  }
  if (status >= 500) {
    if (!ctx.idempotent) {
      return new OutcomeUnknownError(
        `${op.name}: the server failed (${status}) while handling a call that is not safe to repeat; ` +
          `it may or may not have taken effect. Re-read the remote before retrying.${said}`,
        init,
      );
    }
    return new ApiError(`${op.name}: the server failed (${status}).${said}`, { ...init, retryable: true });
  }
  if (status === 404 && namesMissingDeployment(op, parsed, ctx.deploymentId)) {
    return new ApiError(
      `deployment "${ctx.deploymentId}" not found on ${ctx.host ?? 'the service'} (404): check --deployment, HOSTSYNC_DEPLOYMENT ` +
        `or "deployment" in hostsync.json; \`hostsync link\` lists the deployments this key can see`,
      { ...init, code: DEPLOYMENT_NOT_FOUND, retryable: false },
    );
  }
  return new ApiError(`${op.name}: request refused (${status}).${said}`, { ...init, retryable: false });
}

/** ApiError.code of a 404 that means the configured deployment does not exist (or the key cannot see it). */
export const DEPLOYMENT_NOT_FOUND = 'deployment_not_found';

/**
 * A 404 of a deployment's endpoint that is about the deployment, not a path in it: the
 * service's code says so, or its message names the deployment as what is missing.
 */
function namesMissingDeployment(op: Operation, parsed: { message: string; code: string | undefined }, deploymentId: string): boolean {
  if (!op.path.includes('/deployments/:id')) return false;
  if (parsed.code === DEPLOYMENT_NOT_FOUND) return true;
  const m = parsed.message.toLowerCase();
  return m.includes('not found') && (m.includes('deployment') || (deploymentId !== '' && m.includes(deploymentId.toLowerCase())));
}

/**
 * Error codes that only a connection attempt can raise (DNS, connect): no request byte
 * can have reached the server, so repeating anything is safe.
 */
const NOT_SENT_CODES = new Set(['ECONNREFUSED', 'ENOTFOUND', 'EAI_AGAIN', 'UND_ERR_CONNECT_TIMEOUT']);
/**
 * Routing errors that mean "never sent" only when connect(2) raised them: on a kept-alive
 * socket the same codes come from a write after the request left (a route vanished).
 */
const NOT_SENT_IF_CONNECTING = new Set(['EHOSTUNREACH', 'ENETUNREACH', 'EADDRNOTAVAIL']);

/**
 * Causes that repeat identically on retry (bad certificate, bad hostname, a header
 * undici refuses to send): not worth retrying.
 */
const PERMANENT_CODES = new Set([
  'ENOTFOUND', 'CERT_HAS_EXPIRED', 'DEPTH_ZERO_SELF_SIGNED_CERT', 'SELF_SIGNED_CERT_IN_CHAIN',
  'UNABLE_TO_VERIFY_LEAF_SIGNATURE', 'ERR_TLS_CERT_ALTNAME_INVALID', 'UND_ERR_INVALID_ARG',
]);

/** Causes that point at the configured address rather than at the network. */
const CHECK_BASE_URL_CODES = new Set(['ECONNREFUSED', 'ENOTFOUND']);

const CODE_WORDS: Record<string, string> = {
  ECONNREFUSED: 'connection refused',
  ECONNRESET: 'connection reset by the server',
  EPIPE: 'connection closed while sending',
  ENOTFOUND: 'host name not found',
  EAI_AGAIN: 'DNS lookup failed',
  EHOSTUNREACH: 'host unreachable',
  ENETUNREACH: 'network unreachable',
  ETIMEDOUT: 'timed out',
  UND_ERR_SOCKET: 'connection dropped (other side closed)',
  UND_ERR_CONNECT_TIMEOUT: 'connect timed out',
  UND_ERR_HEADERS_TIMEOUT: 'timed out waiting for the response',
  UND_ERR_BODY_TIMEOUT: 'timed out reading the response',
  UND_ERR_ABORTED: 'request aborted',
  UND_ERR_CLOSED: 'client closed',
  UND_ERR_DESTROYED: 'client destroyed',
  UND_ERR_INVALID_ARG: 'the request could not be built (invalid argument)',
  ELOCALCHANGED: 'a local file changed while it was being sent',
};

/** Codes that mean a local file being streamed into the request could not be read: not the network's fault. */
const LOCAL_READ_CODES = new Set(['ENOENT', 'EACCES', 'EISDIR', 'EMFILE', 'EPERM', 'ELOCALCHANGED', 'TAR_ENTRY_ERROR']);

/** The innermost meaningful code of a low-level error (undici wraps system errors in `cause`). */
export function causeCode(err: unknown): string {
  return causeOf(err).code;
}

/** causeCode, with the syscall of the error that carried that code (connect, write, read...). */
function causeOf(err: unknown): { code: string; syscall: string | undefined } {
  let e: unknown = err;
  let best = '';
  let syscall: string | undefined;
  for (let depth = 0; depth < 5 && e && typeof e === 'object'; depth++) {
    const code = (e as { code?: unknown }).code;
    if (typeof code === 'string') {
      // Prefer a system code (ECONNRESET) over undici's wrapper (UND_ERR_SOCKET).
      if (!best || (best.startsWith('UND_ERR') && !code.startsWith('UND_ERR'))) {
        best = code;
        const sc = (e as { syscall?: unknown }).syscall;
        syscall = typeof sc === 'string' ? sc : undefined;
      }
    }
    e = (e as { cause?: unknown }).cause;
  }
  if (!best && err instanceof Error && err.name === 'NotReadableError') best = 'ELOCALCHANGED';
  if (!best && err instanceof Error && err.name === 'AbortError') best = 'UND_ERR_ABORTED';
  if (!best && err instanceof Error && err.name === 'TimeoutError') best = 'ETIMEDOUT';
  return { code: best || 'EUNKNOWN', syscall };
}

/** True when the request certainly never reached the server. `syscall`: of the error that carried `code`. */
export function neverSent(code: string, syscall?: string): boolean {
  return NOT_SENT_CODES.has(code) || (NOT_SENT_IF_CONNECTING.has(code) && syscall === 'connect');
}

/** Seconds for a message: whole above 10 s, else to a tenth ("0.3 s" in tests, "30 s" in use). */
export function secondsText(ms: number): string {
  const s = ms / 1000;
  return `${s >= 10 ? Math.round(s) : Math.round(s * 10) / 10} s`;
}

/** How to wait longer, named in every timeout message. */
const WAIT_LONGER_HINT = 'HOSTSYNC_TIMEOUT=<seconds> waits longer';

/**
 * The error for an attempt that got no answer (or not all of it) within its timeout,
 * a wall-clock bound: the connection was accepted, so the service is up but stuck,
 * overloaded, or trickling its answer.
 */
export function timeoutError(op: Operation, code: 'UND_ERR_HEADERS_TIMEOUT' | 'UND_ERR_BODY_TIMEOUT', ctx: { host: string; idempotent: boolean; timeoutMs: number }): ApiError {
  const within = secondsText(ctx.timeoutMs);
  const what = code === 'UND_ERR_BODY_TIMEOUT'
    ? `the service did not finish its answer to ${op.name} within ${within}`
    : `the service accepted the connection but did not answer ${op.name} within ${within}`;
  const init = { operation: op.name, status: 0, serverMessage: CODE_WORDS[code] ?? code, code, host: ctx.host };
  if (!ctx.idempotent) {
    return new OutcomeUnknownError(
      `${what}; the call is not safe to repeat and may or may not have taken effect: re-read the remote before retrying (${WAIT_LONGER_HINT})`,
      init,
    );
  }
  return new ApiError(`${what}; it is overloaded or stuck: try again later (${WAIT_LONGER_HINT})`, { ...init, retryable: true });
}

/** ApiError.code of a call stopped by the command's overall deadline (HostingClient's deadlineMs). */
export const DEADLINE_CODE = 'EDEADLINE';

/** The error for a call the command's deadline stopped: not retried, whatever the call. */
export function deadlineError(
  operation: string, deadlineMs: number, opts: { sent: boolean; idempotent: boolean; host?: string | undefined; why?: string },
): ApiError {
  const init = { operation, status: 0, serverMessage: 'deadline passed', code: DEADLINE_CODE, host: opts.host };
  const text = `${operation}: gave up when the command's deadline of ${secondsText(deadlineMs)} passed; ${opts.why ?? 'the service answers too slowly'}: ` +
    'try again later (HOSTSYNC_DEADLINE=<seconds> allows longer)';
  if (opts.sent && !opts.idempotent) return new OutcomeUnknownError(`${text}. The call may or may not have taken effect: re-read the remote before retrying`, init);
  return new ApiError(text, { ...init, retryable: false });
}

/**
 * Builds the error for a request that got no HTTP answer.
 * `idempotent` decides whether an "it may have been sent" failure is retryable or outcome-unknown.
 */
export function networkError(
  op: Operation,
  cause: unknown,
  ctx: { host: string; redactor: Redactor; idempotent: boolean; timeoutMs?: number; baseUrlFrom?: string | undefined },
): ApiError {
  const { code, syscall } = causeOf(cause);
  if (ctx.timeoutMs !== undefined && (code === 'UND_ERR_HEADERS_TIMEOUT' || code === 'UND_ERR_BODY_TIMEOUT')) {
    return timeoutError(op, code, { host: ctx.host, idempotent: ctx.idempotent, timeoutMs: ctx.timeoutMs });
  }
  const what = CODE_WORDS[code] ?? ctx.redactor.text(cause instanceof Error ? cause.message : String(cause));
  const serverMessage = `${what} (${code})`;
  const init = { operation: op.name, status: 0, serverMessage, code, host: ctx.host };
  if (LOCAL_READ_CODES.has(code)) {
    const text = `${op.name}: reading a local file failed while sending to ${ctx.host}: ${serverMessage}.`;
    if (!ctx.idempotent) {
      return new OutcomeUnknownError(`${text} The request was cut short; re-read the remote before retrying.`, init);
    }
    return new ApiError(text, { ...init, retryable: false });
  }
  if (neverSent(code, syscall)) {
    // Signed node URLs come from the server; only API calls go where the base URL says,
    // and the question names where that came from (issue 46, item 14).
    const hint = op.rateLimited && CHECK_BASE_URL_CODES.has(code) ? ` Is the service up, and is ${ctx.baseUrlFrom ?? 'the service address'} right?` : '';
    return new ApiError(`${op.name}: could not reach ${ctx.host}: ${serverMessage}.${hint}`, {
      ...init,
      retryable: !PERMANENT_CODES.has(code),
    });
  }
  if (!ctx.idempotent) {
    return new OutcomeUnknownError(
      `${op.name}: the connection to ${ctx.host} failed after the request was sent: ${serverMessage}. ` +
        `The call is not safe to repeat and may or may not have taken effect; re-read the remote before retrying.`,
      init,
    );
  }
  return new ApiError(`${op.name}: the request to ${ctx.host} failed: ${serverMessage}.`, {
    ...init,
    retryable: !PERMANENT_CODES.has(code),
  });
}

/**
 * The typed client for the Deployment Hosting Control API: every endpoint the sync
 * engine, watch, pull, rollback and the reports need, and nothing that hand-rolls HTTP.
 *
 * The endpoints as typed methods, and what each call asks of the path below, are
 * client-api.ts's; this file is that path and the transfers that stream files.
 *
 * Every call takes the same path: retry policy (retry.ts) -> queue (queue.ts: order,
 * in-flight bound, sliding-window pacing, 429 pause) -> transport (transport.ts: one
 * undici request on kept-alive connections). Operation names and shapes are the
 * document's (hosting-api.md); types come from api-types.ts.
 */

import { createWriteStream } from 'node:fs';
import { rename, rm } from 'node:fs/promises';
import { posix } from 'node:path';
import { createRequire } from 'node:module';
import type * as Pino from 'pino';
import type { Logger } from 'pino';
import {
  ANSWER_TIMEOUT_MS,
  MAX_IN_FLIGHT,
  RATE_LIMIT_MAX_RETRIES,
  RATE_WINDOW_MARGIN_MS,
  RETRY_AFTER_FALLBACK_MS,
  RETRY_AFTER_MAX_WINDOWS,
  RETRY_BASE_DELAY_MS,
  RETRY_MAX_ATTEMPTS,
  RETRY_MAX_DELAY_MS,
  TIMEOUT_MAX_ATTEMPTS,
  TRANSFER_MIN_BYTES_PER_SECOND,
} from './tunables.js';
import { RATE_LIMIT_REQUESTS, RATE_LIMIT_USER_REQUESTS, RATE_LIMIT_WINDOW_MS } from '../api/limits.js';
import type { SignedUrl } from '../api/types.js';
import * as S from '../api/schemas.js';
import { answerTimeoutMs, bindApi, type AccountApi, type ArchiveCut, type CallInit, type DeploymentsApi, type EnvApi, type FilesApi } from './client-api.js';
import { ApiError, OutcomeUnknownError, cancelledError, deadlineError, errorFromResponse, notTheApiError, rateLimitTooLongError } from './errors.js';
import { checkAnswer, failAnswer } from './answer.js';
import { partOf } from '../local/temp-names.js';
import { deploymentIdProblem } from '../model/deployment-id.js';
import { usageError } from '../errors.js';
import { BudgetLedger, describeWait, ledgerDir, ledgerFile } from './ledger.js';
import { OPERATIONS, apiPath, type Operation } from './operations.js';
import { RequestQueue } from './queue.js';
import { SlidingWindow, retryAfterDelay, type Slot } from './ratelimit.js';
import { REDACTED, Redactor, redactingLogger } from './redact.js';
import { withRetry, type RetryPolicy } from './retry.js';
import { StatsCounter, type ClientStats } from './stats.js';
import { Transport, assertSecureUrl, hostOf, type TransportResponse } from './transport.js';
import {
  filesForm,
  streamForm,
  tarGzPart,
  tarGzStream,
  type ArchivePart,
  type ArchiveStream,
  type FilesForm,
  type UploadFile,
} from './upload.js';

// CommonJS packages are required, not imported: see docs/decisions.md, "Start-up".
const require = createRequire(import.meta.url);
const { pino } = require('pino') as typeof Pino;

export type { ClientStats } from './stats.js';

/** The key's rate budget as one client sees it at one instant (HostingClient.budget()). */
export interface BudgetView {
  /** Requests counted in the sliding window: ours (in flight or answered) plus foreign use read from X-RateLimit-Remaining. */
  used: number;
  limit: number;
  windowMs: number;
  /** A 429's Retry-After still in force (ms). */
  pausedMs: number;
  /** Budget-spending requests this client has sent since it was made (a running count). */
  sent: number;
  /** ms until `n` requests could go at once (0: now; Infinity: only an answer in flight frees room). */
  roomInMs(n: number): number;
}
export type { UploadFile } from './upload.js';
export { answerTimeoutMs, type AccountApi, type ArchiveCut, type DeploymentsApi, type EnvApi, type FilesApi } from './client-api.js';

export interface ClientOptions {
  /** {base_url}; the client appends /api/v1. https://, or http:// to a loopback host only. */
  baseUrl: string;
  apiKey: string;
  /** Empty only for a client that makes account-level calls (deployments.list, account.get), as `link` does. */
  deploymentId: string;
  /** Where `baseUrl` came from (`--base-url`, `HOSTSYNC_BASE_URL`, `"baseUrl" in hostsync.json`): an unreachable service's error asks whether that is right. */
  baseUrlFrom?: string | undefined;
  /** The key's budget; default 120 per 60 s, and 300 per user across keys (hosting-api.md, Limits). */
  rateLimit?: { requests: number; windowMs: number; userRequests?: number };
  /**
   * The budget ledger shared with other hostsync processes (ledger.ts): its folder, or
   * false for none. Default: ledgerDir() (HOSTSYNC_CACHE_DIR, XDG_CACHE_HOME or ~/.cache).
   */
  ledger?: { dir: string } | false;
  /** Requests running at once; default MAX_IN_FLIGHT. */
  maxInFlight?: number;
  /**
   * How long an ordinary call's attempt may take, whole (wall clock, to the last byte of
   * its answer); default ANSWER_TIMEOUT_MS. Slower calls get a multiple
   * (ANSWER_TIMEOUT_FACTOR), calls that wait server-side their wait, and every call the
   * bytes it moves at TRANSFER_MIN_BYTES_PER_SECOND.
   */
  timeoutMs?: number;
  /**
   * The whole command's budget, wall clock from the client's creation: when it passes,
   * every call still running, queued, backing off or waiting for the shared budget fails
   * with the deadline's error, and so does every later one. Default: none (watch runs for days).
   */
  deadlineMs?: number;
  /** Debug-level request logs go here (key-bearing fields redacted); default: silent. */
  logger?: Logger;
  /** Overrides of the retry policy (tests, benchmarks). */
  retry?: Partial<RetryPolicy>;
  /**
   * Another client's connections to use (same service, same key): a status the watch works
   * out for a command goes over the watch's warm connections, with no TCP or TLS handshake.
   * Everything else is this client's own (budget window, deadline, counts); closing it leaves
   * the connections to their owner.
   */
  connectionsOf?: HostingClient;
}

const USER_AGENT = 'hostsync/0.1 (+undici)';

/** What an HTTP header value may hold (visible ASCII); undici refuses anything else, so the key is checked up front. */
const KEY_CHARS = /^[\x21-\x7e]+$/;

/** What the last API answer said about the budget and the clock. */
export interface LastAnswer {
  /** X-RateLimit-Remaining; null when no answer carried it. */
  rateRemaining: number | null;
  /** The Date header, in ms since the epoch (1 s resolution). */
  serverDateMs: number | null;
  /** This machine's clock when that answer arrived. */
  receivedAtMs: number | null;
}

/** One attempt's answer, with the wait a 429 asked for. */
interface Answer extends TransportResponse {
  retryAfterMs?: number;
}

export class HostingClient {
  readonly files: FilesApi;
  readonly deployments: DeploymentsApi;
  /** Environment variables: secrets come back masked; every answer names keys, and only env.list ever carries a (plain) value. */
  readonly env: EnvApi;
  readonly account: AccountApi;

  /** The last API answer's budget header and clock: what `doctor` reports without a request of its own. */
  private last: LastAnswer = { rateRemaining: null, serverDateMs: null, receivedAtMs: null };

  private readonly apiBase: URL;
  private readonly deploymentId: string;
  private readonly redactor: Redactor;
  private readonly transport: Transport;
  /** False when the connections are another client's (connectionsOf): that client closes them. */
  private readonly ownsTransport: boolean;
  private readonly queue: RequestQueue;
  /** The budget shared with other processes using this service; undefined when disabled. */
  private readonly ledger: BudgetLedger | undefined;
  private readonly counters = new StatsCounter();
  private readonly policy: RetryPolicy;
  private readonly timeoutMs: number;
  /** performance.now() after which no attempt starts; undefined: no deadline. */
  private readonly deadlineAt: number | undefined;
  private readonly deadlineMs: number | undefined;
  /** A 429 asking for a longer wait than this fails at once instead. */
  private readonly maxRetryAfterMs: number;
  /** Aborted by destroy(): cancels requests on the wire, retry waits and queued work. */
  private readonly abort = new AbortController();
  /** Aborted when the deadline passes: stops the same things as `abort`, with the deadline's error. */
  private readonly expired = new AbortController();
  private deadlineTimer: NodeJS.Timeout | undefined;
  /** Either of the two: what every wait and every request listens to. */
  private readonly signal: AbortSignal;
  private closed = false;
  /** Server clock minus ours, from the last API answer's Date header (whole seconds); null before one. */
  private serverOffsetMs: number | null = null;

  constructor(opts: ClientOptions) {
    if (!opts.apiKey) throw new Error('hosting client: no API key (set HOSTSYNC_API_KEY)');
    // Never echo the key: the message must be safe to print and log.
    if (!KEY_CHARS.test(opts.apiKey)) throw new Error('HOSTSYNC_API_KEY has characters a key cannot contain: paste the key alone');
    let base: URL;
    try {
      base = new URL(opts.baseUrl);
    } catch {
      throw new Error(`hosting client: base URL is not a URL: ${JSON.stringify(opts.baseUrl)}`);
    }
    assertSecureUrl(base, 'hosting client: base URL');
    this.apiBase = new URL(base.pathname.replace(/\/+$/, '') + '/api/v1', base.origin);
    // The id is a segment of every path: `..` would make the request another endpoint's.
    const idProblem = opts.deploymentId === '' ? null : deploymentIdProblem(opts.deploymentId);
    if (idProblem !== null) throw usageError(`hosting client: ${JSON.stringify(opts.deploymentId)} is not a deployment id (${idProblem})`);
    this.deploymentId = opts.deploymentId;
    this.redactor = new Redactor([opts.apiKey]);
    this.timeoutMs = opts.timeoutMs ?? ANSWER_TIMEOUT_MS;
    this.deadlineMs = opts.deadlineMs;
    this.deadlineAt = opts.deadlineMs === undefined ? undefined : performance.now() + opts.deadlineMs;
    this.signal = AbortSignal.any([this.abort.signal, this.expired.signal]);
    this.policy = {
      maxAttempts: RETRY_MAX_ATTEMPTS,
      maxTimeoutAttempts: TIMEOUT_MAX_ATTEMPTS,
      baseDelayMs: RETRY_BASE_DELAY_MS,
      maxDelayMs: RETRY_MAX_DELAY_MS,
      max429Retries: RATE_LIMIT_MAX_RETRIES,
      ...opts.retry,
    };
    const maxInFlight = opts.maxInFlight ?? MAX_IN_FLIGHT;
    const rate = opts.rateLimit ?? { requests: RATE_LIMIT_REQUESTS, windowMs: RATE_LIMIT_WINDOW_MS };
    this.maxRetryAfterMs = RETRY_AFTER_MAX_WINDOWS * rate.windowMs;
    const window = new SlidingWindow({ limit: rate.requests, windowMs: rate.windowMs, marginMs: RATE_WINDOW_MARGIN_MS });
    this.queue = new RequestQueue(window, maxInFlight, () => performance.now());
    const logger = opts.logger ? redactingLogger(opts.logger) : pino({ level: 'silent' });
    this.ledger = opts.ledger === false ? undefined : new BudgetLedger({
      file: ledgerFile(opts.ledger?.dir ?? ledgerDir(), this.apiBase.origin),
      apiKey: opts.apiKey,
      keyLimit: rate.requests,
      // A caller that lifts the key's limit (tests, benchmarks) lifts the user's with it.
      userLimit: rate.userRequests ?? Math.max(RATE_LIMIT_USER_REQUESTS, rate.requests),
      windowMs: rate.windowMs,
      marginMs: RATE_WINDOW_MARGIN_MS,
      // The lines name the file themselves: no fields, which a terminal's log line would repeat.
      onUnavailable: (err) => logger.warn(`${err.message}; pacing on this process alone`),
      onWait: (w) => logger.warn(describeWait(w, Date.now())),
    });
    const lender = opts.connectionsOf;
    if (lender && (lender.apiBase.href !== this.apiBase.href || lender.redactor.text(opts.apiKey) !== REDACTED)) {
      throw new Error('hosting client: connections can be shared only with a client of the same service and key');
    }
    this.ownsTransport = lender === undefined;
    this.transport = lender ? lender.transport : new Transport({
      apiKey: opts.apiKey,
      redactor: this.redactor,
      logger,
      // One spare connection per origin so a long upload does not hold up API calls.
      connectionsPerOrigin: maxInFlight + 1,
      userAgent: USER_AGENT,
      baseUrlFrom: opts.baseUrlFrom,
    });

    const api = bindApi(<T>(o: Operation, init: CallInit<T> = {}) => this.call<T>(o, init), {
      download: (path, to) => this.download(path, to),
      upload: (dir, files) => this.upload(dir, files),
      uploadArchive: (root, relPaths, dir, name, cut) => this.uploadArchive(root, relPaths, dir, name, cut),
    });
    this.files = api.files;
    this.deployments = api.deployments;
    this.env = api.env;
    this.account = api.account;
    if (opts.deadlineMs !== undefined) {
      // A timer, not a check before each attempt: the wait it ends may be a request whose
      // server trickles its answer, a 429 pause, or the shared budget held by others.
      this.deadlineTimer = setTimeout(() => this.expire(), Math.min(opts.deadlineMs, 2 ** 31 - 1));
      // Pending work holds the process open by itself; a command that is done must not wait for its deadline.
      this.deadlineTimer.unref();
    }
  }

  /** The deadline passed: everything pending fails with its error, and so does every later call. */
  private expire(): void {
    this.deadlineTimer = undefined;
    if (this.abort.signal.aborted) return;
    this.expired.abort();
    this.queue.close((operation) => deadlineError(operation, this.deadlineMs!, { sent: false, idempotent: true }));
  }

  /** The error of a call the signal stopped: the deadline's, unless destroy() came first (expire() then does nothing). */
  private stopError(operation: string, ctx: { sent: boolean; idempotent: boolean; host?: string; why?: string }): ApiError {
    if (this.expired.signal.aborted) return deadlineError(operation, this.deadlineMs!, ctx);
    return cancelledError(operation, ctx);
  }

  /**
   * The command's deadline (its length, and what is left of it now), for work of the
   * command's own that is not a call (a push's build); null when it has none.
   */
  deadline(): { ms: number; leftMs: number } | null {
    if (this.deadlineMs === undefined || this.deadlineAt === undefined) return null;
    return { ms: this.deadlineMs, leftMs: Math.max(0, this.deadlineAt - performance.now()) };
  }

  /** The budget left and the service's clock, as the last API answer stated them (nulls before any answer). */
  lastAnswer(): LastAnswer {
    return { ...this.last };
  }

  /**
   * How far the server's clock is from ours (ms, server minus local, to within a second),
   * from the last answer's Date header; null before any answer. Undo finds the history
   * versions a push saved by the server's timestamps.
   */
  clockOffsetMs(): number | null {
    return this.serverOffsetMs;
  }

  stats(): ClientStats {
    return this.counters.snapshot({ waitedMs: this.queue.waitedMs, pacedMs: this.queue.pacedMs + (this.ledger?.waitedMs ?? 0) });
  }

  /** The key's budget as this client sees it now (its own window; the shared ledger is not read). Costs no request. */
  budget(): BudgetView {
    const now = performance.now();
    const w = this.queue.window;
    return {
      used: w.used(now),
      limit: w.limit,
      windowMs: w.windowMs,
      pausedMs: w.pausedFor(now),
      sent: w.taken,
      roomInMs: (n) => w.roomIn(n, now),
    };
  }

  resetStats(): void {
    this.counters.reset();
    this.queue.resetCounters();
    this.ledger?.resetCounters();
  }

  /**
   * Refuses new work, lets running requests finish, then closes the connections.
   * `force: true` is destroy(). A graceful close still waiting can be cut short by destroy().
   */
  async close(opts: { force?: boolean } = {}): Promise<void> {
    if (opts.force) return this.destroy();
    if (this.closed) return;
    this.closed = true;
    this.queue.close();
    clearTimeout(this.deadlineTimer);
    // Running requests finish (p-queue's onIdle) before the connections close under them;
    // a destroy() meanwhile has dropped the connections already.
    await this.queue.idle();
    if (!this.abort.signal.aborted && this.ownsTransport) await this.transport.close();
    await this.ledger?.flush();
  }

  /**
   * Shuts down now (SIGINT): every pending call rejects with an ApiError of code
   * ECANCELLED ("cancelled: hostsync is shutting down"). Calls not on the wire (queued,
   * waiting out a backoff or a 429 pause) are plain cancellations; a call not safe to
   * repeat whose request was already sent rejects as OutcomeUnknownError (it may have
   * taken effect). Connections are dropped. Idempotent; later calls are refused the same way.
   */
  async destroy(): Promise<void> {
    this.closed = true;
    clearTimeout(this.deadlineTimer);
    if (!this.abort.signal.aborted) this.abort.abort(cancelledError('client'));
    this.queue.close((operation) => cancelledError(operation));
    // A borrower's running requests end with its own abort signal; the lender's go on.
    if (this.ownsTransport) await this.transport.destroy();
  }

  // ---- the one path every call takes ----

  private async call<T>(o: Operation, init: CallInit<T> = {}): Promise<T> {
    const idempotent = init.idempotent ?? o.idempotent;
    const url = init.url ?? this.apiUrl(o, init.query, init.key);
    const host = hostOf(url);
    try {
      return await withRetry<T>(
        init.singleAttempt ? { ...this.policy, maxAttempts: 1, max429Retries: 0 } : this.policy,
        async (n, isRepeat) => {
          const res = await this.queue.schedule(
            { operation: o.name, rateLimited: o.rateLimited, run: (slot) => this.attempt(o, url, init, idempotent, n, slot) },
            { front: isRepeat },
          );
          const ok = res.status >= 200 && res.status < 300;
          if (ok && init.anyBody) return res.body as T;
          // A web page or plain text is not the API's answer, whatever the status says.
          const foreign = notTheApiError(o, res.status, res.headers, res.body, host);
          if (foreign) throw foreign;
          if (ok || init.accept?.(res.status, res.body)) {
            if (init.schema) return checkAnswer(o.name, init.schema, res.body, { status: res.status, host, redactor: this.redactor });
            if (isObject(res.body)) return res.body as T;
            failAnswer(o.name, 'not a JSON object', { status: res.status, host });
          }
          if (res.retryAfterMs !== undefined && res.retryAfterMs > this.maxRetryAfterMs) {
            throw rateLimitTooLongError(o.name, res.retryAfterMs, Date.now(), host);
          }
          throw errorFromResponse(o, res.status, res.body, {
            host, deploymentId: this.deploymentId, redactor: this.redactor, idempotent,
            noRateHeader: o.rateLimited && header(res.headers['x-ratelimit-remaining']) === undefined,
            // An API call's wait is the queue's pause; a node transfer waits on its own.
            ...(o.rateLimited ? {} : { retryAfterMs: res.retryAfterMs }),
          });
        },
        this.retryHooks(o.name),
      );
    } catch (e) {
      if (e instanceof OutcomeUnknownError) this.counters.unknownOutcome();
      throw e;
    }
  }

  private retryHooks(operation: string) {
    return {
      onRetry: () => this.counters.retried(),
      signal: this.signal,
      cancelled: () => this.stopError(operation, { sent: false, idempotent: true }),
    };
  }

  /** One attempt, run by the queue once it holds a slot: send, then feed the answer back into pacing. */
  private async attempt(
    o: Operation, url: URL, init: CallInit, idempotent: boolean, n: number, slot: Slot | undefined,
  ): Promise<Answer> {
    const host = hostOf(url);
    // Waiting for a slot (pacing, a 429 pause) counts against the deadline too.
    const timeoutMs = this.answerTimeoutMs(o, init);
    const left = this.deadlineAt === undefined ? Infinity : this.deadlineAt - performance.now();
    if (left <= 0 || this.signal.aborted) throw this.stopError(o.name, { sent: false, idempotent, host });
    const body = init.body ? await init.body() : undefined;
    // The one step shared with other processes: a slot in the key's budget on this machine.
    // Other processes void it once older than this attempt may take (its timeout, or the deadline's rest).
    const reservation = slot && this.ledger
      ? await this.ledger.reserve(this.signal, Math.min(timeoutMs, left)).catch((e: unknown) => {
        if (!this.signal.aborted) throw e;
        throw this.stopError(o.name, { sent: false, idempotent, host, why: 'the rate budget shared with other hostsync processes stayed full' });
      })
      : undefined;
    this.counters.sent(o.name, o.rateLimited);
    const res = await this.transport.send({
      op: o,
      url,
      idempotent,
      ...(init.json !== undefined ? { json: init.json } : {}),
      ...(body !== undefined ? { body } : {}),
      ...(init.bytesOut ? { bytesOut: init.bytesOut } : {}),
      ...(init.sink ? { sink: init.sink } : {}),
      auth: init.url === undefined,
      timeoutMs,
      // A size known up front is in timeoutMs already.
      ...(init.sizeHint === undefined ? { minBytesPerSecond: TRANSFER_MIN_BYTES_PER_SECOND } : {}),
      attempt: n,
      signal: this.signal,
      stopped: (sent) => this.stopError(o.name, { sent, idempotent, host }),
    }).finally(() => reservation?.done());
    const now = performance.now();
    const date = header(res.headers.date);
    if (date !== undefined && init.url === undefined) {
      const at = Date.parse(date);
      if (Number.isFinite(at)) this.serverOffsetMs = at - Date.now();
    }
    const remaining = header(res.headers['x-ratelimit-remaining']);
    if (o.rateLimited) this.noteAnswer(remaining, header(res.headers.date));
    // A 429's budget header is not used: its Retry-After already says when room opens,
    // and "0 left" would otherwise be read as a full window of foreign use.
    if (slot && res.status !== 429 && remaining !== undefined && /^\d+$/.test(remaining.trim())) {
      this.queue.window.observeRemaining(slot, Number(remaining), now);
    }
    if (res.status === 429) {
      this.counters.limited();
      const retryAfterMs = retryAfterDelay(res.headers, Date.now(), RETRY_AFTER_FALLBACK_MS);
      // Paused here, before this job's slot is released, so nothing queued slips out first.
      // A signed node URL's 429 is not the API's budget: API calls carry on meanwhile.
      if (o.rateLimited && retryAfterMs <= this.maxRetryAfterMs) this.queue.pause(retryAfterMs);
      return { ...res, retryAfterMs };
    }
    return res;
  }

  private answerTimeoutMs(o: Operation, init: CallInit): number {
    return answerTimeoutMs(o.name, this.timeoutMs, { waitMs: init.extraTimeoutMs, bytes: init.sizeHint });
  }

  private noteAnswer(remaining: string | undefined, date: string | undefined): void {
    const dateMs = date === undefined ? NaN : Date.parse(date);
    this.last = {
      rateRemaining: remaining !== undefined && /^\d+$/.test(remaining.trim()) ? Number(remaining) : this.last.rateRemaining,
      serverDateMs: Number.isNaN(dateMs) ? this.last.serverDateMs : dateMs,
      receivedAtMs: Number.isNaN(dateMs) ? this.last.receivedAtMs : Date.now(),
    };
  }

  private apiUrl(o: Operation, query?: CallInit['query'], key?: string): URL {
    if (o.path.includes(':id') && !this.deploymentId) throw new Error(`hosting client: ${o.name} needs a deployment id`);
    const path = apiPath(o, this.deploymentId).replace(':key', encodeURIComponent(key ?? ''));
    const url = new URL(this.apiBase.pathname + path, this.apiBase.origin);
    for (const [k, v] of Object.entries(query ?? {})) if (v !== undefined) url.searchParams.set(k, String(v));
    return url;
  }

  /** A signed URL from the server, resolved against the base and held to the same https rule. */
  private signedUrl(raw: string, what: string): URL {
    const url = new URL(raw, this.apiBase);
    assertSecureUrl(url, what);
    return url;
  }

  // ---- transfers through signed node URLs ----

  private async upload(dir: string, files: UploadFile[]): Promise<void> {
    if (files.length === 0) return;
    const target = await this.files.uploadUrl(dir);
    const total = files.reduce((s, f) => s + f.size, 0);
    let form: FilesForm | undefined;
    try {
      await this.call<unknown>(OPERATIONS.filesUpload, {
        url: this.signedUrl(target.url, 'upload URL'),
        body: async () => {
          // A repeat starts a fresh form; the old one must close its files.
          await form?.close();
          form = await filesForm(target.field || 'files', files);
          return form.form;
        },
        bytesOut: () => total,
        sizeHint: total,
        anyBody: true,
      });
    } finally {
      // A dead upload leaves a part's file open where its read stopped.
      await form?.close();
    }
  }

  private async uploadArchive(
    localRoot: string, relPaths: string[], remoteDir: string, archiveName: string, cut?: ArchiveCut,
  ): Promise<{ path: string; bytes: number; files: number }> {
    const target = await this.files.uploadUrl(remoteDir);
    let archive: ArchiveStream | ArchivePart | undefined;
    try {
      await this.call<unknown>(OPERATIONS.filesUpload, {
        url: this.signedUrl(target.url, 'upload URL'),
        body: () => {
          // A repeat (after a 429) starts a fresh archive; the old one must close its files.
          archive?.destroy();
          archive = cut
            ? tarGzPart(localRoot, relPaths.map((p, i) => ({ path: p, stat: cut.stats[i]! })), cut.budget)
            : tarGzStream(localRoot, relPaths);
          return streamForm(target.field || 'files', archiveName, archive.stream, 'application/gzip');
        },
        bytesOut: () => archive?.bytes() ?? 0,
        anyBody: true,
      });
    } catch (e) {
      // A dead upload leaves tar paused on back-pressure with source files open.
      archive?.destroy();
      throw e;
    }
    const dir = remoteDir.replace(/^\/+|\/+$/g, '');
    const files = archive && 'files' in archive ? archive.files() : relPaths.length;
    return { path: dir ? posix.join(dir, archiveName) : archiveName, bytes: archive?.bytes() ?? 0, files };
  }

  /**
   * downloadUrl + one streamed GET into a temp file beside the target, renamed into
   * place only when complete. The signed URL is single-use, so a failed transfer is
   * retried with a fresh URL rather than the spent one. Retries happen at this level
   * only: each round is one downloadUrl attempt and one GET attempt.
   */
  private async download(path: string, toLocalPath: string): Promise<void> {
    const tmp = partOf(toLocalPath);
    try {
      await withRetry(
        this.policy,
        async () => {
          const signed = await this.call<SignedUrl>(OPERATIONS.filesDownloadUrl, { schema: S.SignedUrl, query: { path }, singleAttempt: true });
          // Exclusive: a name planted meanwhile (a link out of the root) is never written through.
          // A failed attempt's part is removed first, since the retry reuses its name.
          await rm(tmp, { force: true });
          const sink = createWriteStream(tmp, { flags: 'wx' });
          try {
            await this.call<unknown>(OPERATIONS.filesDownload, {
              url: this.signedUrl(signed.url, 'download URL'),
              sink,
              anyBody: true,
              singleAttempt: true,
            });
          } finally {
            sink.destroy();
          }
        },
        this.retryHooks(OPERATIONS.filesDownload.name),
      );
      await rename(tmp, toLocalPath);
    } catch (e) {
      await rm(tmp, { force: true });
      throw e;
    }
  }
}

function header(v: string | string[] | undefined): string | undefined {
  return Array.isArray(v) ? v[0] : v;
}

function isObject(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

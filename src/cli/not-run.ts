/**
 * What `--json` prints for a command that never produced its result: a usage error
 * commander caught before the command ran (an unknown flag, a bad value, a missing
 * argument), or a throw out of a command's start-up. It keeps the one output model:
 * the command's empty result (its keys, zero counts, nulls) plus `error` and `exitCode`;
 * for the streaming commands (watch, dev), the `fatal` event their stream would end with.
 * An unknown command has no keys to keep: `{ok, error, exitCode}`.
 */
import { emptyDiffResult } from '../app/diff.js';
import { emptyDoctorResult } from '../app/doctor.js';
import { emptyEnvResult } from '../app/env.js';
import { emptyExecResult } from '../app/exec.js';
import { emptyHistoryResult } from '../app/history.js';
import { emptyInitResult } from '../app/init.js';
import { emptyLinkResult } from '../app/link.js';
import { emptyLogsReport } from '../app/logs.js';
import { emptyPullResult } from '../app/pull.js';
import { emptyPushResult } from '../app/push.js';
import { emptyResolveResult } from '../app/resolve.js';
import { emptyRestartResult } from '../app/restart.js';
import { emptyOpenResult } from '../app/open.js';
import { emptyCreateResult } from '../app/create.js';
import { emptyStatusResult } from '../app/status.js';
import { emptyTargetsResult } from '../app/targets.js';
import { emptyTrustResult } from '../app/trust.js';
import { emptyUndoResult } from '../app/undo.js';
import { emptyRollbackResult } from '../app/rollback.js';

/** The emulator's result is its ready line (DESIGN.md, Interfaces): those keys, null, when it could not start. */
export const emulatorNotStarted = { baseUrl: null, apiKey: null, deploymentId: null, volume: null };

/** Each command's empty result. A command added without one falls back to `{ok, error, exitCode}`. */
const EMPTY: Record<string, () => object> = {
  push: emptyPushResult,
  status: emptyStatusResult,
  diff: emptyDiffResult,
  pull: emptyPullResult,
  resolve: emptyResolveResult,
  undo: emptyUndoResult,
  history: emptyHistoryResult,
  rollback: emptyRollbackResult,
  exec: emptyExecResult,
  init: emptyInitResult,
  link: emptyLinkResult,
  logs: emptyLogsReport,
  trust: emptyTrustResult,
  targets: emptyTargetsResult,
  doctor: emptyDoctorResult,
  restart: emptyRestartResult,
  open: emptyOpenResult,
  create: emptyCreateResult,
  // `env` alone names no action, so it has no result to shape: it keeps {ok, error, exitCode}.
  'env list': () => emptyEnvResult('list'),
  'env diff': () => emptyEnvResult('diff'),
  'env push': () => emptyEnvResult('push'),
  'env pull': () => emptyEnvResult('pull'),
  emulator: () => emulatorNotStarted,
};

/** Commands whose --json is one event per line: a failure is their stream's last event. */
const STREAMS = new Set(['watch', 'dev']);

export function notRunJson(command: string | undefined, error: string, exitCode: number): Record<string, unknown> {
  if (command && STREAMS.has(command)) return { type: 'fatal', message: error, exitCode, time: new Date().toISOString() };
  const empty = command ? EMPTY[command] : undefined;
  // Every empty result already says ok: false, except the emulator's ready line, which has no `ok`.
  return { ...(empty ? empty() : { ok: false }), error, exitCode };
}

/**
 * hostsync as a library: `import { push, status, watch, startEmulator } from 'hostsync'`.
 *
 * Small and stable on purpose. Every function takes the CLI's options (same names,
 * same precedence: options > environment > hostsync.json, same validation) and comes
 * back with the object the CLI's `--json` prints. Nothing here prints or exits the
 * process: failures are results (`ok: false`, `error`, `exitCode`), not rejections.
 */
import { startEmulator as startEmulatorServer, type EmulatorOptions } from './emulator/index.js';

export { push, type PushOptions, type PushResult, type ChangeItem, type ConflictItem, type DriftItem } from './app/push.js';
export { status, type StatusOptions, type StatusResult } from './app/status.js';
export { watch, type WatchOptions, type WatchHandle, type WatchEvent, type WatchEventType, type WatchCycleEvent, type WatchEnd } from './app/watch.js';
export { init, type InitOptions, type InitResult } from './app/init.js';
export { link, type LinkOptions, type LinkResult, type LinkChoice } from './app/link.js';
export { pull, type PullOptions, type PullResult } from './app/pull.js';
export { diff, type DiffOptions, type DiffResult, type DiffItem } from './app/diff.js';
export { resolve, type ResolveOptions, type ResolveResult } from './app/resolve.js';
export { undo, type UndoOptions, type UndoResult, type UndoneItem } from './app/undo.js';
export { history, type HistoryResult, type HistoryItem } from './app/history.js';
export { targets, type TargetsOptions, type TargetsResult, type TargetItem } from './app/targets.js';
export { env, type EnvAction, type EnvOptions, type EnvResult, type EnvListItem } from './app/env.js';
export type { EnvChange, EnvChangeKind } from './sync/settings/env-plan.js';
export { restart, type RestartOptions, type RestartResult } from './app/restart.js';
export type { SettingsResult } from './app/deploy-settings.js';
export { doctor, type DoctorOptions, type DoctorResult, type DoctorCheck, type CheckId } from './app/doctor.js';
export type { ConfigEditResult, FieldChange } from './config/edit.js';
export type { ConnectionOptions, DeploymentRef } from './app/options.js';
export type { FailureFields, RequestsSummary } from './app/result.js';
export type { ChangeCounts } from './sync/push/push.js';
export type { StepFailure, ProgressFn, ProgressEvent } from './sync/push/execute.js';
export type { LogLevel, RestartPolicy } from './config/config.js';
export { EXIT, HostsyncError, type ExitCode } from './errors.js';

/** The typed client for the endpoints hostsync uses (rate-limit aware, retrying what is safe to repeat). */
export { HostingClient, type ClientOptions, type ClientStats, type UploadFile } from './remote/client.js';
export { ApiError, OutcomeUnknownError } from './remote/errors.js';
export type * from './api/types.js';

export interface EmulatorStartOptions extends Omit<EmulatorOptions, 'seed'> {
  /** Port on 127.0.0.1; default: any free port. */
  port?: number;
}

/** A running emulator: point `push`/`status`/`watch` (or a HostingClient) at it. */
export interface Emulator {
  /** "http://127.0.0.1:PORT"; the API is under baseUrl + "/api/v1". */
  baseUrl: string;
  /** A key holding every scope. */
  apiKey: string;
  deploymentId: string;
  /** Absolute path of the deployment's files on disk. */
  volume: string;
  /** Stops the server and every app process it started. */
  stop(): Promise<void>;
}

/** Starts the local emulator of the Hosting API on 127.0.0.1 (what `hostsync emulator` runs). */
export async function startEmulator(opts: EmulatorStartOptions = {}): Promise<Emulator> {
  const emu = await startEmulatorServer(opts);
  return { baseUrl: emu.baseUrl, apiKey: emu.apiKey, deploymentId: emu.deploymentId, volume: emu.volume, stop: () => emu.close() };
}

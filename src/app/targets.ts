import { readConfigFile, resolveRoot, selectTarget, topSettings } from '../config/config.js';
import { runCommand, type FailureFields, type Outcome } from './result.js';

/** One target of hostsync.json, as `hostsync targets` lists it. */
export interface TargetItem {
  name: string;
  /** The deployment it names (its own, else the top level's); null when neither names one. */
  deployment: string | null;
  /** Its own base URL, else the top level's; null when neither sets one (HOSTSYNC_BASE_URL then decides). */
  baseUrl: string | null;
  confirm: boolean;
  /** It is "defaultTarget". */
  isDefault: boolean;
  /** A command run now with the same flags and environment would use it. */
  selected: boolean;
}

export interface TargetsOptions {
  dir?: string;
  target?: string;
  env?: NodeJS.ProcessEnv;
}

/** What `targets --json` prints and `targets()` resolves to. */
export interface TargetsResult extends Partial<FailureFields> {
  ok: boolean;
  root: string | null;
  targets: TargetItem[];
  /** The target selected now (flag > HOSTSYNC_TARGET > defaultTarget), or null. */
  selected: string | null;
}

/** The shape of a listing that could not be made. */
export const emptyTargetsResult = (): TargetsResult => ({ ok: false, root: null, targets: [], selected: null });

/** `hostsync targets`: the targets hostsync.json defines and which one commands would use. Sends nothing. */
export async function runTargets(opts: TargetsOptions = {}): Promise<{ result: Outcome<TargetsResult>; thrown: boolean }> {
  return runCommand<TargetsResult>(
    emptyTargetsResult,
    async () => {
      const root = await resolveRoot(opts.dir);
      const file = await readConfigFile(root);
      const selected = selectTarget(file, opts.target, opts.env ?? process.env)?.name ?? null;
      const top = topSettings(file);
      const targets = Object.entries(file.targets ?? {}).map(([name, t]) => ({
        name,
        deployment: t.deployment ?? top.deployment ?? null,
        baseUrl: t.baseUrl ?? top.baseUrl ?? null,
        confirm: t.confirm ?? false,
        isDefault: file.defaultTarget === name,
        selected: selected === name,
      }));
      return { ok: true, root, targets, selected };
    },
  );
}

export async function targets(opts: TargetsOptions = {}): Promise<TargetsResult> {
  return (await runTargets(opts)).result;
}

import { access, appendFile, readFile, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { checkDeploymentId, CONFIG_FILE, normaliseBaseUrl, readConfigFile, resolveRoot, type ConfigFile } from '../config/config.js';
import { setConfigFields, setGitignoreSetting, setTargetFields, type ConfigEditResult } from '../config/edit.js';
import { detectProjectKind, type ProjectKind } from '../config/project-kind.js';
import { isTrusted, trustBaseUrl } from '../config/trust.js';
import { STATE_DIR } from '../state/paths.js';
import { runCommand, type FailureFields, type Outcome } from './result.js';
import { detectAppData, detectStart, startKeys } from './project-settings.js';
import type { AppDataFinding } from '../config/app-data.js';
import type { ProjectStart } from '../config/project-start.js';

/** The template ships in the package root, beside package.json. */
const EXAMPLE = fileURLToPath(new URL('../../.syncignore.example', import.meta.url));

export interface InitOptions {
  dir?: string;
  /** Written into hostsync.json; on an existing file, only these options change it (not the environment). */
  deployment?: string;
  baseUrl?: string;
  /** Adds (or updates) this target in hostsync.json with `deployment` and `baseUrl`, instead of the top-level fields. */
  target?: string;
  env?: NodeJS.ProcessEnv;
  /**
   * With a .gitignore and no "gitignore" in hostsync.json: asked whether the .gitignore
   * also keeps files off the deployment; the answer is saved. Without it the first push asks.
   */
  askGitignore?: () => Promise<boolean>;
}

/** What `init --json` prints and `init()` resolves to; `error` and `exitCode` when `ok` is false. */
export interface InitResult extends Partial<FailureFields> {
  ok: boolean;
  root: string | null;
  /** What was done to hostsync.json: created, or the fields changed (none: kept as it was). */
  config: ConfigEditResult | null;
  syncignore: 'written' | 'kept' | null;
  /** `.hostsync/` was appended to an existing .gitignore. */
  gitignoreAdded: boolean;
  /**
   * The kind read from package.json / requirements.txt, and whether its `health` went
   * into hostsync.json (`written`: false when the file already had `health`); null when no
   * known package says (the default `auto` then decides at each push).
   */
  detected: (ProjectKind & { written: boolean }) | null;
  /**
   * How the project starts, read from package.json, the Procfile, requirements.txt and the
   * entry names (config/project-start.ts), and which of startup, size and hotPaths were
   * written (a key the file has is kept); null when nothing says.
   */
  start?: (ProjectStart & { written: string[] }) | null;
  /**
   * The app's data the code shows it writes (config/app-data.ts), proposed as "remoteOwned",
   * and whether it was written (false: hostsync.json had the key); null when the code shows none.
   */
  appData?: (AppDataFinding & { written: boolean }) | null;
}

const exists = (file: string): Promise<boolean> => access(file).then(() => true, () => false);

/** The shape of an init that did nothing. */
export const emptyInitResult = (): InitResult => ({ ok: false, root: null, config: null, syncignore: null, gitignoreAdded: false, detected: null, start: null, appData: null });

/**
 * `hostsync init` as a function: writes hostsync.json and .syncignore, never overwriting
 * either; on an existing hostsync.json, `deployment` and `baseUrl` update those fields and
 * keep the rest. Adds `.hostsync/` to an existing .gitignore. Writes `health` for the kind
 * package.json or requirements.txt shows (a bot: worker; a web framework: web) when the
 * file has no `health` yet.
 */
export async function runInit(opts: InitOptions = {}): Promise<{ result: Outcome<InitResult>; thrown: boolean }> {
  return runCommand<InitResult>(
    emptyInitResult,
    async () => {
      const env = opts.env ?? process.env;
      const root = await resolveRoot(opts.dir);
      const existed = await exists(path.join(root, CONFIG_FILE));
      // On a new file the environment fills in too; an existing file changes only on an option.
      const deployment = opts.deployment ?? (existed ? undefined : env.HOSTSYNC_DEPLOYMENT || undefined);
      if (deployment) checkDeploymentId(deployment, opts.deployment ? '--deployment' : 'HOSTSYNC_DEPLOYMENT');
      const baseUrlRaw = opts.baseUrl ?? (existed ? undefined : env.HOSTSYNC_BASE_URL || undefined);
      const baseUrl = baseUrlRaw ? normaliseBaseUrl(baseUrlRaw, opts.baseUrl ? '--base-url' : 'HOSTSYNC_BASE_URL') : undefined;
      // The user typed this address (or exported it): the key may follow it from the file too.
      if (baseUrl && !(await isTrusted(baseUrl, env))) await trustBaseUrl(baseUrl, env);
      const kind = detectProjectKind({
        packageJson: await readFile(path.join(root, 'package.json'), 'utf8').catch(() => null),
        requirements: await readFile(path.join(root, 'requirements.txt'), 'utf8').catch(() => null),
      });
      const fields = { ...(deployment ? { deployment } : {}), ...(baseUrl ? { baseUrl } : {}) };
      const start = await detectStart(root);
      const appData = await detectAppData(root);
      const missing = { ...(kind ? { health: kind.health } : {}), ...startKeys(start), ...(appData ? { remoteOwned: appData.patterns } : {}), ...(await proposeInstall(root, kind, start, existed)) };
      const config = opts.target ? await setTargetFields(root, opts.target, fields, missing) : await setConfigFields(root, fields, missing);
      const detected = kind ? { ...kind, written: config.added.includes('health') } : null;

      const ignorePath = path.join(root, '.syncignore');
      const ignoreExisted = await exists(ignorePath);
      if (!ignoreExisted) await writeFile(ignorePath, await readFile(EXAMPLE, 'utf8'));

      const gitignore = path.join(root, '.gitignore');
      let gitignoreAdded = false;
      if (await exists(gitignore)) {
        const text = await readFile(gitignore, 'utf8');
        if (!text.split(/\r?\n/).some((l) => l.trim() === `${STATE_DIR}/` || l.trim() === STATE_DIR)) {
          await appendFile(gitignore, `${text.endsWith('\n') || text === '' ? '' : '\n'}${STATE_DIR}/\n`);
          gitignoreAdded = true;
        }
      }
      if (opts.askGitignore && (await exists(gitignore)) && (await readConfigFile(root)).gitignore === undefined) {
        await setGitignoreSetting(root, await opts.askGitignore());
      }
      const written = config.added.filter((k) => k === 'startup' || k === 'size' || k === 'hotPaths');
      return {
        ok: true,
        root,
        config,
        syncignore: ignoreExisted ? 'kept' : 'written',
        gitignoreAdded,
        detected,
        start: start ? { ...start, written } : null,
        appData: appData ? { ...appData, written: config.added.includes('remoteOwned') } : null,
      };
    },
  );
}

/**
 * A bot restarts at every code change: init proposes `"install": "on-change"` (issue 47,
 * item 4) for a worker whose entry file it knows and that does not start itself with a
 * command of its own. Only where the file's startup (kept or written) names that entry.
 */
async function proposeInstall(root: string, kind: ProjectKind | null, start: ProjectStart | null, existed: boolean): Promise<Partial<ConfigFile>> {
  if (kind?.kind !== 'worker' || !start?.startup.entryFile || start.startup.startCommand !== undefined) return {};
  const kept = existed ? (await readConfigFile(root)).startup : undefined;
  if (kept !== undefined && (!kept.entryFile || kept.startCommand !== undefined)) return {};
  return { install: 'on-change' };
}

export async function init(opts: InitOptions = {}): Promise<InitResult> {
  return (await runInit(opts)).result;
}

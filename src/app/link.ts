import type { Deployment } from '../api/types.js';
import { checkDeploymentId, projectRootOf, readConfigFile } from '../config/config.js';
import { setConfigFields, setTargetFields, type ConfigEditResult } from '../config/edit.js';
import { usageError } from '../errors.js';
import type { HostingClient } from '../remote/client.js';
import { clientFor, resolveConfig, type ConnectionOptions } from './options.js';
import { loadIgnoreMatcher } from '../local/ignore-file.js';
import { linkMisfit, type LinkMisfit } from './link-fit.js';
import { detectStart, startKeys } from './project-settings.js';
import { requestsOf, runCommand, type FailureFields, type Outcome, type RequestsSummary } from './result.js';
import { READ_COMMAND_DEADLINE_MS } from './tunables.js';

/** A deployment as `link` lists, checks and reports it. */
export interface LinkChoice {
  id: string;
  name: string;
  state: string;
}

export interface LinkOptions extends ConnectionOptions {
  /** Link the deployment with this name (exact, case-insensitive). `deployment` links by id. */
  name?: string;
  /** Asks the user to pick one of several; without it, several deployments and no id or name is a usage error. */
  choose?: (visible: LinkChoice[]) => Promise<number>;
  /**
   * Asks whether to link the only deployment there is although it holds another project
   * (app/link-fit.ts); `question` says what it holds. Without it such a link is refused (exit 2).
   */
  confirmMisfit?: (question: string) => Promise<boolean>;
}

/** What `link --json` prints and `link()` resolves to; `error` and `exitCode` when `ok` is false. */
export interface LinkResult extends Partial<FailureFields> {
  ok: boolean;
  /** The deployment linked; null when none was. */
  deployment: LinkChoice | null;
  /** Every deployment the key can see (deployments.list). */
  deployments: LinkChoice[];
  baseUrl: string | null;
  /** The hostsync.json target the deployment was linked for; null: the top-level "deployment". */
  target: string | null;
  /** What was written to hostsync.json; null when nothing was. */
  config: ConfigEditResult | null;
  requests: RequestsSummary;
}

const choiceOf = (d: Deployment): LinkChoice => ({ id: d.id, name: d.name, state: d.state });

/**
 * Picks from what the key can see: the id (must be listed), the name (exact,
 * case-insensitive, unique), the only deployment there is, or the user's choice.
 * Anything else is a usage error that says which option to pass.
 */
export async function chooseDeployment(
  visible: LinkChoice[],
  by: { id?: string; name?: string },
  choose?: (visible: LinkChoice[]) => Promise<number>,
): Promise<LinkChoice> {
  if (visible.length === 0) throw usageError('this key sees no deployment: create one in the dashboard, or use a key of the account that owns it');
  if (by.id) {
    const hit = visible.find((d) => d.id === by.id);
    if (!hit) throw usageError(`deployment ${by.id} is not among the ${visible.length} this key can see: run \`hostsync link\` to pick one, or check the id`);
    return hit;
  }
  if (by.name) {
    const wanted = by.name.toLowerCase();
    const hits = visible.filter((d) => d.name.toLowerCase() === wanted);
    if (hits.length === 1) return hits[0]!;
    if (hits.length > 1) throw usageError(`${hits.length} deployments are named "${by.name}" (${hits.map((d) => d.id).join(', ')}): pass --deployment ID instead`);
    const near = visible.filter((d) => d.name.toLowerCase().includes(wanted)).map((d) => `"${d.name}"`);
    throw usageError(`no deployment is named "${by.name}"${near.length ? ` (did you mean ${near.join(' or ')}?)` : ''}: run \`hostsync link\` to list them`);
  }
  if (visible.length === 1) return visible[0]!;
  if (!choose) throw usageError(`this key sees ${visible.length} deployments: pass --deployment ID or --name NAME`);
  const i = await choose(visible);
  const picked = visible[i];
  if (!picked) throw usageError(`choice ${i + 1} is not in the list of ${visible.length}`);
  return picked;
}

/** What the only deployment holds that makes it another project's, in one sentence. */
export function misfitText(d: LinkChoice, m: LinkMisfit): string {
  const shown = m.missing.slice(0, 3).join(', ') + (m.missing.length > 3 ? ', ...' : '');
  const entry = m.entry ? `; it starts ${m.entry.deployment}, this folder's entry is ${m.entry.folder}` : '';
  return `the only deployment, "${d.name}" (${d.id}), looks like another project: ${m.judged - m.shared} of its ${m.judged} files are not in this folder (${shown})${entry}`;
}

/** The shape of a link that linked nothing. */
export const emptyLinkResult = (): LinkResult => ({ ok: false, deployment: null, deployments: [], baseUrl: null, target: null, config: null, requests: requestsOf(null) });

/**
 * `hostsync link` as a function: lists the deployments the key can see, picks one, and
 * writes it (and the base URL, when given as an option or missing from the file) into
 * hostsync.json, creating the file when missing. The deployment comes only from
 * `deployment` or `name`, never from the environment or the file: choosing it is the point.
 */
export async function runLink(opts: LinkOptions = {}): Promise<{ result: Outcome<LinkResult>; thrown: boolean }> {
  let client: HostingClient | null = null;
  let visible: LinkChoice[] = [];
  let baseUrl: string | null = null;
  let apiKey: string | undefined;
  return runCommand<LinkResult>(
    () => ({ ...emptyLinkResult(), deployments: visible, baseUrl, requests: requestsOf(client?.stats()) }),
    async () => {
      if (opts.deployment) checkDeploymentId(opts.deployment, '--deployment');
      const config = await resolveConfig({ ...opts, deployment: undefined }, true, false);
      ({ baseUrl, apiKey } = config);
      // Its one call comes before the choice: a user taking long to choose meets no deadline.
      client = clientFor(opts, config, READ_COMMAND_DEADLINE_MS, '');
      try {
        const listed = (await client.deployments.list()).deployments;
        visible = listed.map(choiceOf);
        const chosen = await chooseDeployment(
          visible,
          { ...(opts.deployment ? { id: opts.deployment } : {}), ...(opts.name ? { name: opts.name } : {}) },
          opts.choose,
        );
        // An id the service listed goes into hostsync.json, and from there into every path.
        checkDeploymentId(chosen.id, 'the service lists a deployment whose id');
        const root = projectRootOf(config);
        const start = await detectStart(root);
        // Taken without being named or picked: it must look like this folder's (issue 46).
        if (!opts.deployment && !opts.name && visible.length === 1) {
          const candidate = clientFor(opts, config, READ_COMMAND_DEADLINE_MS, chosen.id);
          try {
            const matcher = await loadIgnoreMatcher(config.root, config.ignore);
            const misfit = await linkMisfit(candidate, listed[0]!, config.root, matcher, start?.startup.entryFile ?? null);
            if (misfit !== null) {
              const what = misfitText(chosen, misfit);
              if (!opts.confirmMisfit) throw usageError(`${what}: run \`hostsync link --deployment ${chosen.id}\` to link it anyway (a push would replace its files with this folder's), or \`hostsync create\` for a deployment of this folder's own`);
              if (!(await opts.confirmMisfit(what))) throw usageError(`not linked: run \`hostsync create\` for a deployment of this folder's own, or \`hostsync link --deployment ID\``);
            }
          } finally {
            await candidate.close();
          }
        }
        const file = await readConfigFile(root);
        // With a target selected, the choice is that target's: commands on it read its
        // "deployment" before the top level's, so writing the top level would change nothing.
        const fileBaseUrl = (config.target !== null ? file.targets?.[config.target]?.baseUrl : undefined) ?? file.baseUrl;
        const fields = { deployment: chosen.id, ...(opts.baseUrl || !fileBaseUrl ? { baseUrl: config.baseUrl } : {}) };
        const edit = config.target !== null
          ? await setTargetFields(root, config.target, fields)
          : await setConfigFields(root, fields, startKeys(start));
        return { ok: true, deployment: chosen, deployments: visible, baseUrl, target: config.target, config: edit, requests: requestsOf(client.stats()) };
      } finally {
        await client.close();
      }
    },
    () => apiKey ?? opts.apiKey ?? (opts.env ?? process.env).HOSTSYNC_API_KEY,
  );
}

export async function link(opts: LinkOptions = {}): Promise<LinkResult> {
  return (await runLink(opts)).result;
}

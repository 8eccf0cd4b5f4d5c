/**
 * `hostsync create NAME`: a new deployment made from the project's settings in one
 * deployments.create: hostsync.json's runtime, version and size (so the first install is
 * not killed for want of memory), then linked in hostsync.json. The entry file and start
 * command are not create's fields: the first push sets them (an `S` line), with the files.
 */
import { checkDeploymentId, projectRootOf } from '../config/config.js';
import { setConfigFields, type ConfigEditResult } from '../config/edit.js';
import type { HostingClient } from '../remote/client.js';
import { usageError } from '../errors.js';
import { clientFor, resolveConfig, type ConnectionOptions } from './options.js';
import { COMMAND_DEADLINE_MS } from './tunables.js';
import { requestsOf, runCommand, type FailureFields, type Outcome, type RequestsSummary } from './result.js';

export interface CreateOptions extends ConnectionOptions {
  name: string;
}

export interface CreateResult extends Partial<FailureFields> {
  ok: boolean;
  deployment: { id: string; name: string; runtime: string; ramMB: number | null } | null;
  /** What was written to hostsync.json; null when nothing was. */
  config: ConfigEditResult | null;
  requests: RequestsSummary;
}

export const emptyCreateResult = (): CreateResult => ({ ok: false, deployment: null, config: null, requests: requestsOf(null) });

export async function runCreate(opts: CreateOptions): Promise<{ result: Outcome<CreateResult>; thrown: boolean }> {
  let client: HostingClient | null = null;
  let apiKey: string | undefined;
  return runCommand(
    () => ({ ...emptyCreateResult(), requests: requestsOf(client?.stats()) }),
    async () => {
      if (!opts.name.trim()) throw usageError('give the new deployment a name: hostsync create NAME');
      const config = await resolveConfig({ ...opts, deployment: undefined }, true, false);
      apiKey = config.apiKey;
      client = clientFor(opts, config, COMMAND_DEADLINE_MS, '');
      try {
        const s = config.startup ?? {};
        const z = config.size ?? {};
        const { deployment: d } = await client.deployments.create({
          name: opts.name,
          source: 'blank',
          ...(s.runtime ? { runtime: s.runtime } : {}),
          ...(s.runtimeVersion ? { runtimeVersion: s.runtimeVersion } : {}),
          ...(z.ramMB ? { ramMB: z.ramMB } : {}),
          ...(z.cpuPct ? { cpuPct: z.cpuPct } : {}),
          ...(z.storageMB ? { storageMB: z.storageMB } : {}),
        });
        checkDeploymentId(d.id, 'the service created a deployment whose id');
        const edit = await setConfigFields(projectRootOf(config), { deployment: d.id, ...(opts.baseUrl ? { baseUrl: config.baseUrl } : {}) });
        return {
          ok: true,
          deployment: { id: d.id, name: d.name, runtime: d.startup?.runtime ?? d.runtime, ramMB: d.resources?.ramMB ?? null },
          config: edit,
          requests: requestsOf(client.stats()),
        };
      } finally {
        await client.close();
      }
    },
    () => apiKey ?? opts.apiKey ?? (opts.env ?? process.env).HOSTSYNC_API_KEY,
  );
}

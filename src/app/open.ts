/**
 * `hostsync open`: the app's public address, from the deployment's record (one
 * deployments.get), only ever an http: or https: URL (model/web-address.ts). Opening a
 * browser is the CLI's business (cli/commands/open.ts).
 */
import type { HostingClient } from '../remote/client.js';
import { EXIT, HostsyncError } from '../errors.js';
import { webAddress } from '../model/web-address.js';
import { clientFor, resolveConfig, type ConnectionOptions } from './options.js';
import { READ_COMMAND_DEADLINE_MS } from './tunables.js';
import { knownWorker } from './worker-app.js';
import { failedWith, requestsOf, runCommand, type FailureFields, type Outcome, type RequestsSummary } from './result.js';

export type OpenOptions = ConnectionOptions;

export interface OpenResult extends Partial<FailureFields> {
  ok: boolean;
  /** The public URL; null when the deployment publishes none. */
  url: string | null;
  /** The live state, as the record says. */
  state: string | null;
  requests: RequestsSummary;
}

export const emptyOpenResult = (): OpenResult => ({ ok: false, url: null, state: null, requests: requestsOf(null) });

export async function runOpen(opts: OpenOptions = {}): Promise<{ result: Outcome<OpenResult>; thrown: boolean }> {
  let client: HostingClient | null = null;
  let apiKey: string | undefined;
  return runCommand(
    () => ({ ...emptyOpenResult(), requests: requestsOf(client?.stats()) }),
    async () => {
      const config = await resolveConfig(opts);
      apiKey = config.apiKey;
      // The service lists an address for a worker too, but nothing listens there.
      const worker = await knownWorker(config);
      if (worker) throw new HostsyncError(`deployment ${config.deploymentId} is a worker (${worker}): it has no public URL; \`hostsync logs -f\` shows it running`, EXIT.failed);
      client = clientFor(opts, config, READ_COMMAND_DEADLINE_MS);
      try {
        const d = await client.deployments.get();
        const given = d.domains?.url || null;
        const url = given === null ? null : webAddress(given);
        const result: OpenResult = { ok: url !== null, url, state: d.state, requests: requestsOf(client.stats()) };
        // The address goes to a browser opener: anything but a plain web address is refused, never opened.
        if (given !== null && url === null) {
          return failedWith(result, `deployment ${config.deploymentId}'s public address ${JSON.stringify(given)} is not an http: or https: URL: not opened (the service's record is wrong; report it)`, EXIT.failed);
        }
        // A bot or worker publishes no address: nothing to open is an answer, not a fault of the service.
        return url ? result : failedWith(result, `deployment ${config.deploymentId} has no public address (a bot or worker serves none; a web app gets one once it has a domain)`, EXIT.failed);
      } finally {
        await client.close();
      }
    },
    () => apiKey ?? opts.apiKey ?? (opts.env ?? process.env).HOSTSYNC_API_KEY,
  );
}

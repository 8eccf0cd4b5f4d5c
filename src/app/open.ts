/**
 * `hostsync open`: the app's public address, from the deployment's record (one
 * deployments.get). Opening a browser is the CLI's business (cli/commands/open.ts).
 */
import type { HostingClient } from '../remote/client.js';
import { EXIT } from '../errors.js';
import { clientFor, resolveConfig, type ConnectionOptions } from './options.js';
import { READ_COMMAND_DEADLINE_MS } from './tunables.js';
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
      client = clientFor(opts, config, READ_COMMAND_DEADLINE_MS);
      try {
        const d = await client.deployments.get();
        const url = d.domains?.url || null;
        const result: OpenResult = { ok: url !== null, url, state: d.state, requests: requestsOf(client.stats()) };
        // A bot or worker publishes no address: nothing to open is an answer, not a fault of the service.
        return url ? result : failedWith(result, `deployment ${config.deploymentId} has no public address (a bot or worker serves none; a web app gets one once it has a domain)`, EXIT.failed);
      } finally {
        await client.close();
      }
    },
    () => apiKey ?? opts.apiKey ?? (opts.env ?? process.env).HOSTSYNC_API_KEY,
  );
}

/**
 * `hostsync dev --stop-remote` (issue 47, item 3): while dev runs a bot locally with a token
 * a deployment also runs with, that deployment is stopped (deployments.power stop), and
 * started again when dev ends. Only a deployment that was running or starting is stopped,
 * so only those are started again.
 */
import { loadConfig, type ConfigFlags } from '../config/config.js';
import type { HostingClient } from '../remote/client.js';
import { commandClient } from '../sync/command-client.js';
import { confirmTarget } from './options.js';
import { READ_COMMAND_DEADLINE_MS, STOP_REMOTE_WAIT_SECONDS } from './tunables.js';
import { partyName, type TokenParty } from './shared-tokens.js';

const RUNNING = new Set(['running', 'starting']);

/** A deployment dev stopped: `start()` starts it again and says how it answered. */
export interface StoppedCopy {
  party: TokenParty;
  start(): Promise<string>;
}

export interface StopRemoteResult {
  stopped: StoppedCopy[];
  /** One line per party that was not stopped, and why (not running, no key, refused...). */
  notes: string[];
}

export async function stopRemoteCopies(
  projectRoot: string,
  parties: readonly TokenParty[],
  opts: { env: NodeJS.ProcessEnv; yes?: boolean; confirm?: (q: string) => Promise<boolean> },
): Promise<StopRemoteResult> {
  const out: StopRemoteResult = { stopped: [], notes: [] };
  const seen = new Set<string>();
  for (const party of parties) {
    if (party.deployment === null || seen.has(party.deployment)) continue;
    seen.add(party.deployment);
    const flags: ConfigFlags = party.kind === 'target' ? { dir: projectRoot, target: party.name } : { dir: projectRoot, deployment: party.name };
    let client: HostingClient | null = null;
    try {
      // Never dev's own emulator: the copy to stop is the one on the service.
      const config = await loadConfig({ flags, env: opts.env, devEmulator: false });
      await confirmTarget(config, opts, 'stop');
      // Its own deadline (the read-only commands'), beside dev's, which runs until stopped.
      client = commandClient(config, undefined, { deadlineMs: READ_COMMAND_DEADLINE_MS });
      const { state } = await client.deployments.get();
      if (!RUNNING.has(state)) {
        out.notes.push(`${partyName(party)} is ${state}: left as it is`);
        await client.destroy();
        continue;
      }
      await client.deployments.power('stop', STOP_REMOTE_WAIT_SECONDS);
      const c = client;
      out.stopped.push({
        party,
        start: async () => {
          try {
            const r = await c.deployments.power('start');
            return `${partyName(party)} started again: ${r.state}`;
          } catch (err) {
            return `${partyName(party)} was not started again (${(err as Error).message}): start it with \`hostsync restart ${party.kind === 'target' ? '--target' : '--deployment'} ${party.name}\``;
          } finally {
            await c.destroy().catch(() => undefined);
          }
        },
      });
    } catch (err) {
      await client?.destroy().catch(() => undefined);
      out.notes.push(`${partyName(party)} was not stopped: ${(err as Error).message}`);
    }
  }
  return out;
}

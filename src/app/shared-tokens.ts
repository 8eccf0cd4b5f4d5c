/**
 * One running copy per token (issue 47, item 3). A bot token whose value is the same in two
 * targets' env files, or in the `.env` that `hostsync dev` runs with and a target's, means
 * two copies of one bot fighting over it. Only the project's local env files are compared
 * (the service never returns a secret's value); values are compared as HMACs under a key
 * made for this one comparison and never kept, and no value is ever printed: a warning
 * names the variable, the file and the other party.
 */
import { createHmac, randomBytes } from 'node:crypto';
import path from 'node:path';
import { projectRootOf, readConfigFile, type Config, type ConfigFile } from '../config/config.js';
import { devEmulatorFor } from '../config/dev-emulator.js';
import { isTokenName } from '../config/tokens.js';
import { readEnvFile } from '../local/envfile.js';

/** Who runs the bot with an env file: a target, the top-level deployment, or `hostsync dev`. */
export interface TokenParty {
  kind: 'target' | 'deployment' | 'dev';
  /** The target's name, the deployment's id, or "dev". */
  name: string;
  /** The env file it runs with, relative to the project root. */
  envFile: string;
  /** Its deployment; null for dev (its own emulator's). */
  deployment: string | null;
}

/** A token `self` shares with `other`: the variables' names, never their value. */
export interface SharedToken {
  key: string;
  otherKey: string;
  other: TokenParty;
  selfFile: string;
}

export function tokenParties(raw: ConfigFile): TokenParty[] {
  const top = raw.envFile ?? '.env';
  const parties: TokenParty[] = [];
  if (raw.deployment) parties.push({ kind: 'deployment', name: raw.deployment, envFile: top, deployment: raw.deployment });
  for (const [name, t] of Object.entries(raw.targets ?? {})) parties.push({ kind: 'target', name, envFile: t.envFile ?? top, deployment: t.deployment ?? raw.deployment ?? null });
  parties.push({ kind: 'dev', name: 'dev', envFile: top, deployment: null });
  return parties;
}

export const partyName = (p: TokenParty): string => (p.kind === 'target' ? `target "${p.name}"` : p.kind === 'dev' ? '`hostsync dev`' : `deployment ${p.name}`);

/**
 * The tokens `self` shares with the other parties. `devRunning`: a `hostsync dev` session
 * runs, so dev's env file is a running copy too (self being dev counts as running).
 * Two parties on one deployment are one running copy: not compared.
 */
export async function sharedTokens(projectRoot: string, raw: ConfigFile, self: TokenParty, devRunning: boolean): Promise<SharedToken[]> {
  const extra = raw.tokens ?? [];
  const others = tokenParties(raw).filter(
    (p) => !(p.kind === self.kind && p.name === self.name) && (p.deployment === null || p.deployment !== self.deployment) && (p.kind !== 'dev' || devRunning || self.kind === 'dev'),
  );
  if (others.length === 0) return [];
  // A key for this comparison only: the digests outlive nothing, and mean nothing elsewhere.
  const key = randomBytes(32);
  const files = new Map<string, Promise<Map<string, string> | null>>();
  const tokensOf = (rel: string): Promise<Map<string, string> | null> => {
    let got = files.get(rel);
    if (!got) {
      got = readEnvFile(path.resolve(projectRoot, rel)).then(
        (values) => new Map([...values].filter(([k, v]) => isTokenName(k, extra) && v.trim() !== '').map(([k, v]) => [k, createHmac('sha256', key).update(v, 'utf8').digest('hex')])),
        // A missing or unreadable file holds no token to compare.
        () => null,
      );
      files.set(rel, got);
    }
    return got;
  };
  const mine = await tokensOf(self.envFile);
  if (!mine || mine.size === 0) return [];
  const out: SharedToken[] = [];
  for (const other of others) {
    const theirs = await tokensOf(other.envFile);
    if (!theirs) continue;
    for (const [k, d] of mine) {
      const otherKey = [...theirs].find(([, od]) => od === d)?.[0];
      if (otherKey !== undefined) out.push({ key: k, otherKey, other, selfFile: self.envFile });
    }
  }
  return out;
}

/** The one-line warning of a shared token: names and files only. */
export function sharedTokenWarning(s: SharedToken, self: TokenParty): string {
  const same = s.otherKey === s.key ? s.key : `${s.key} (${s.otherKey} there)`;
  const files = s.other.envFile === s.selfFile ? `both read ${s.selfFile}` : `${s.selfFile} and ${s.other.envFile}`;
  const fix = self.kind === 'dev' && s.other.kind !== 'dev'
    ? `give dev its own test bot's token, or run \`hostsync dev --stop-remote\` to stop ${partyName(s.other)} while dev runs`
    : `give each its own bot token`;
  return `${same} has the same value for ${partyName(self)} and ${partyName(s.other)} (${files}): two running copies of one token fight (duplicate replies on Discord, 409 "terminated by other getUpdates request" on Telegram); ${fix}`;
}

/** Who a command's configuration runs the bot as. */
export function selfParty(config: Config, raw: ConfigFile): TokenParty {
  const envFile = config.envFile;
  if (config.devEmulator) return { kind: 'dev', name: 'dev', envFile: raw.envFile ?? '.env', deployment: null };
  if (config.target) return { kind: 'target', name: config.target, envFile, deployment: config.deploymentId };
  return { kind: 'deployment', name: config.deploymentId, envFile, deployment: config.deploymentId };
}

/** The warnings of push, watch and env push for `config`; never fails the command (a check that cannot read finds nothing). */
export async function sharedTokenWarnings(config: Config): Promise<string[]> {
  try {
    const projectRoot = projectRootOf(config);
    const raw = await readConfigFile(projectRoot);
    const self = selfParty(config, raw);
    const devRunning = self.kind === 'dev' || (await devEmulatorFor(projectRoot)) !== null;
    return (await sharedTokens(projectRoot, raw, self, devRunning)).map((s) => sharedTokenWarning(s, self));
  } catch {
    return [];
  }
}

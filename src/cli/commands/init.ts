import type { Command } from 'commander';
import { runInit, type InitResult } from '../../app/init.js';
import { CONFIG_FILE } from '../../config/config.js';
import { STATE_DIR } from '../../state/paths.js';
import { configEditLine } from '../config-changes.js';
import { globalFlags } from '../context.js';
import { emitResult } from '../output.js';
import { askYesNo, canPrompt } from '../prompt.js';
import { safeText } from '../terminal-text.js';

export function renderInit(r: InitResult): string {
  const lines: string[] = [];
  const c = r.config!;
  if (!c.created && c.changes.length === 0 && c.added.length === 0) {
    lines.push(`kept ${CONFIG_FILE} (it exists already; --deployment or --base-url update it, \`hostsync link\` picks a deployment)`);
  } else {
    lines.push(configEditLine(c));
  }
  if (c.created) {
    const set = new Set(c.changes.map((ch) => ch.key.replace(/^targets\.[^.]+\./, '')));
    if (!set.has('deployment')) lines.push(`  run \`hostsync link\` to pick your deployment (or set "deployment" in ${CONFIG_FILE}, or HOSTSYNC_DEPLOYMENT)`);
    if (!set.has('baseUrl')) lines.push(`  set "baseUrl" in ${CONFIG_FILE} (or HOSTSYNC_BASE_URL, or --base-url) to the service address`);
  }
  const d = r.detected;
  if (d === null) {
    lines.push('health: kind auto (no known web framework or bot library in package.json / requirements.txt); each push decides web or worker and says so');
  } else {
    const because = `${d.package} in ${d.manifest}`;
    lines.push(d.written ? `health: ${d.kind} (${because}): wrote ${JSON.stringify({ health: d.health })}` : `health: kept the "health" ${CONFIG_FILE} has (${because} suggests ${d.kind})`);
    if (d.written && d.health.ready) {
      lines.push(`  a push waits for a console line matching /${d.health.ready}/ after each restart: print one when the bot has logged in, or remove "ready"`);
    }
  }
  const st = r.start;
  if (st) {
    const what = st.written.length > 0 ? `wrote ${st.written.map((k) => JSON.stringify({ [k]: k === 'startup' ? st.startup : k === 'size' ? st.size : st.hotPaths })).join(', ')}` : `kept the startup, size and hotPaths ${CONFIG_FILE} has`;
    lines.push(`start: ${what}`);
    if (st.notes.length > 0) lines.push(`  from the project: ${st.notes.join('; ')}`);
    if (st.written.includes('startup')) lines.push('  `hostsync status` shows where the deployment differs; `hostsync push` sets it (S lines)');
  }
  const data = r.appData;
  if (data) {
    lines.push(data.written ? `app data: wrote ${JSON.stringify({ remoteOwned: data.patterns })}: the deployment's, never overwritten, deleted or reverted by hostsync` : `app data: kept the "remoteOwned" ${CONFIG_FILE} has (the code suggests ${JSON.stringify(data.patterns)})`);
    lines.push(`  from the project: ${data.notes.map(safeText).join('; ')}`);
  }
  const install = r.config?.added.includes('install') ?? false;
  if (install) lines.push('install: wrote {"install":"on-change"} (a bot restarts at every code change): the start command only starts the app, and a push installs through deployments.shell only when package.json, the lockfile or requirements.txt changed; remove it to install at every start');
  lines.push(r.syncignore === 'kept' ? 'kept .syncignore (it exists already)' : 'wrote .syncignore (gitignore syntax; edit it to keep files off the deployment)');
  if (r.gitignoreAdded) lines.push(`added ${STATE_DIR}/ to .gitignore (hostsync's local state)`);
  lines.push('');
  lines.push('Provide the API key through the environment (it is never stored in a file):');
  lines.push(`  export HOSTSYNC_API_KEY=<key>   # create one in the account's developer settings, with files:read, files:write, deployments:read and deployments:write${install ? ' (and deployments:shell, for the installs)' : ''}`);
  lines.push('Then: hostsync status, hostsync push, or hostsync watch.');
  return lines.join('\n');
}

/** `hostsync init`: hostsync.json and .syncignore; --deployment / --base-url update an existing hostsync.json. */
export async function initCommand(cmd: Command): Promise<number> {
  const g = globalFlags(cmd);
  const outcome = await runInit({
    ...(g.dir !== undefined ? { dir: g.dir } : {}),
    ...(g.deployment !== undefined ? { deployment: g.deployment } : {}),
    ...(g.baseUrl !== undefined ? { baseUrl: g.baseUrl } : {}),
    ...(g.target !== undefined ? { target: g.target } : {}),
    ...(canPrompt(g.json ?? false) ? { askGitignore: () => askYesNo('Should .gitignore also keep files off the deployment (saved as "gitignore" in hostsync.json)?') } : {}),
  });
  return emitResult(outcome, g.json ?? false, renderInit, { quiet: g.quiet ?? false, summary: (r) => renderInit(r).split('\n')[0] ?? '' });
}

#!/usr/bin/env node
// `npm start`: the newcomer's demo. Starts the bundled emulator on 127.0.0.1, pushes
// examples/hello (a web app) with the real CLI, applies it and prints whether the app
// came up; then does the same for examples/discord-bot (a bot: no HTTP, a ready line)
// on a second deployment, to show both kinds come up; then, on a terminal, keeps
// watching the web app so edits go live as you save.
import { spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import { rm } from 'node:fs/promises';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const here = path.dirname(fileURLToPath(import.meta.url));
const repo = path.resolve(here, '..');
const cli = path.join(repo, 'dist', 'bin', 'hostsync.js');
const project = path.join(repo, 'examples', 'hello');
const bot = path.join(repo, 'examples', 'discord-bot');

if (!existsSync(cli)) {
  console.error('hostsync is not built yet: run `npm install` (it builds through `prepare`), then `npm start`');
  process.exit(2);
}

const { startEmulator } = await import(path.join(repo, 'dist', 'emulator', 'index.js'));
const emulator = await startEmulator({});
// Each demo run talks to a brand-new emulator: old state would only describe a volume that no longer exists.
for (const dir of [project, bot]) await rm(path.join(dir, '.hostsync'), { recursive: true, force: true });

// Ctrl-C reaches the CLI child and this script alike: stop the emulator (and the app it
// runs, which lives in its own process group) before leaving, so nothing is left behind.
const shutdown = async () => {
  await emulator.close();
  process.exit(0);
};
process.once('SIGINT', shutdown);
process.once('SIGTERM', shutdown);

const env = {
  ...process.env,
  HOSTSYNC_BASE_URL: emulator.baseUrl,
  HOSTSYNC_DEPLOYMENT: emulator.deploymentId,
  HOSTSYNC_API_KEY: emulator.apiKey,
};

const run = (args, dir = project, extraEnv = {}) =>
  new Promise((resolve) => {
    const child = spawn(process.execPath, [cli, ...args, '--dir', dir], { env: { ...env, ...extraEnv }, stdio: 'inherit' });
    child.on('exit', (code) => resolve(code ?? 1));
  });

console.log(`emulator: ${emulator.baseUrl} (deployment ${emulator.deploymentId}, volume ${emulator.volume})`);
console.log(`\n$ hostsync status --dir examples/hello`);
await run(['status']);
console.log(`\n$ hostsync push --dir examples/hello`);
const webPushed = await run(['push']);

// The bot gets a deployment of its own, as it would on the service.
const botDeployment = await emulator.createDeployment({ name: 'discord-bot' });
console.log(`\n$ hostsync push --dir examples/discord-bot --deployment ${botDeployment.id}`);
const botPushed = await run(['push', '--deployment', botDeployment.id], bot);
const pushed = webPushed !== 0 ? webPushed : botPushed;

const watchAvailable = existsSync(path.join(repo, 'dist', 'cli', 'commands', 'watch.js'));
if (pushed === 0 && watchAvailable && process.stdout.isTTY && !process.env.CI) {
  console.log(`\n$ hostsync watch --dir examples/hello   (edit examples/hello/index.js and save; Ctrl-C to stop)`);
  await run(['watch']);
}
await emulator.close();
process.exit(pushed);

// A chat bot as hostsync sees one: it never listens on HTTP, it prints a ready line once
// "logged in", then stays alive. It logs in to nothing (no token, no network), so it runs
// anywhere, the emulator included. Replace the fake login with your client's, e.g.
//   client.once('ready', () => console.log(`Logged in as ${client.user.tag}`));
//   client.login(process.env.DISCORD_TOKEN);
const name = process.env.BOT_NAME ?? 'ExampleBot#0001';

console.log('connecting to the gateway...');
setTimeout(() => {
  // hostsync.json's "ready" pattern waits for this line.
  console.log(`Logged in as ${name}`);
}, 300);

// A bot stays alive on its open connection; this timer stands in for it.
const heartbeat = setInterval(() => {}, 60_000);

process.on('SIGTERM', () => {
  console.log('shutting down');
  clearInterval(heartbeat);
  process.exit(0);
});

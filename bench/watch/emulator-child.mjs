// The emulator in its own process, so the benchmark's CPU figures are the client's alone.
//   node bench/watch/emulator-child.mjs LATENCY_MS [limits: raised|default] [DATA_DIR]
// prints the ready JSON line, runs until killed. `raised` (the default) lifts the budget so
// pacing stays out of latency figures; `default` keeps the documented 120/300 per minute.
// The same DATA_DIR on a second start serves the same key, deployment and files.
const { startEmulator } = await import(new URL('../../dist/emulator/index.js', import.meta.url).href);
const limits = process.argv[3] === 'default' ? {} : { rateLimit: 1_000_000, userRateLimit: 1_000_000 };
const dataDir = process.argv[4];
// Restore points off: the emulator tars the whole volume inside the first destructive call
// of every 10 minutes (a safety point, as the service takes one before destructive
// operations): 2-3 s at 3k files, over two minutes at 100k, landing on whichever contender
// deletes first. It is the same for every client and not what these figures compare.
const emu = await startEmulator({ runtime: 'static', latencyMs: Number(process.argv[2] ?? 20), autoBackups: false, ...limits, ...(dataDir ? { dataDir } : {}) });
process.stdout.write(`${emu.readyLine()}\n`);
const stop = async () => {
  await emu.close();
  process.exit(0);
};
process.on('SIGTERM', stop);
process.on('SIGINT', stop);

// The emulator in its own process, so the benchmark's CPU figures are the client's alone.
//   node bench/watch/emulator-child.mjs LATENCY_MS  -> prints the ready JSON line, runs until killed.
const { startEmulator } = await import(new URL('../../dist/emulator/index.js', import.meta.url).href);
const emu = await startEmulator({ runtime: 'static', latencyMs: Number(process.argv[2] ?? 20), rateLimit: 1_000_000, userRateLimit: 1_000_000 });
process.stdout.write(`${emu.readyLine()}\n`);
const stop = async () => {
  await emu.close();
  process.exit(0);
};
process.on('SIGTERM', stop);
process.on('SIGINT', stop);

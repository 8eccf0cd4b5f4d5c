/**
 * Loaded into every test file (vitest.config.ts setupFiles): ends the file's CLI host
 * (cli-host.ts) when the file ends, so no host outlives its file and its CPU is counted in
 * the file's window by the CPU log (whose afterAll, registered before this one, runs after).
 */
import { afterAll } from 'vitest';
import { closeCliHost } from './cli-host.js';

afterAll(closeCliHost);

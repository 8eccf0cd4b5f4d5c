import { defineConfig } from 'vitest/config';

// Integration tests start emulators and child processes: keep parallelism modest
// on the 2-core CI machine and give them room, but no timing assertions live here.
export default defineConfig({
  test: {
    include: ['test/**/*.test.ts'],
    testTimeout: 60_000,
    hookTimeout: 60_000,
    pool: 'forks',
    maxWorkers: 2,
  },
});

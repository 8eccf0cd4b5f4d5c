// The two-way bench's tree: --files small text files in 100 folders (shared with naive.mjs).
export const DIRS = 100;
export const rel = (i) => `d${String(i % DIRS).padStart(3, '0')}/f${i}.txt`;
export const content = (i) => `file ${i}\n${'x'.repeat(100 + (i % 200))}\n`;

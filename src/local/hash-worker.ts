/**
 * A HashPool worker thread (hash-pool.ts): boots (module graph, xxhash-wasm) before it has
 * work, then given the columns claims batches from the shared counter until none is left,
 * posts the codes of the files that threw, and exits.
 */
import { parentPort } from 'node:worker_threads';
import { xxhashApi } from './hash.js';
import { claimBatch, hashRange, type PoolColumns } from './hash-pool.js';

const xx = await xxhashApi();
parentPort!.once('message', (columns: PoolColumns) => {
  const errors = new Map<number, string>();
  for (let b = claimBatch(columns); b !== null; b = claimBatch(columns)) hashRange(columns, b[0], b[1], xx, errors);
  parentPort!.postMessage({ errors: [...errors] });
  parentPort!.close();
});

/**
 * A HashPool worker thread (hash-pool.ts): boots (module graph, xxhash-wasm) before it has
 * work, then reads each segment it is given, claiming batches from the segment's shared
 * counter until none is left; at the end it posts the codes of the files that threw (by
 * index among all the pool's files) and exits.
 */
import { parentPort } from 'node:worker_threads';
import { xxhashApi } from './hash.js';
import { readBatch, type PoolMessage } from './hash-pool.js';

const xx = await xxhashApi();
const errors = new Map<number, string>();
parentPort!.on('message', (m: PoolMessage) => {
  if ('segment' in m) {
    while (readBatch(m.segment, xx, errors));
    return;
  }
  parentPort!.postMessage({ errors: [...errors] });
  parentPort!.close();
});

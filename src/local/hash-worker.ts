/**
 * A HashPool worker thread (hash-pool.ts): claims batches from the shared counter until
 * none is left, then posts the codes of the files that threw and exits.
 */
import { parentPort, workerData } from 'node:worker_threads';
import { xxhashApi } from './hash.js';
import { claimBatch, hashRange, type PoolColumns } from './hash-pool.js';

const columns = workerData as PoolColumns;
const xx = await xxhashApi();
const errors = new Map<number, string>();
for (let b = claimBatch(columns); b !== null; b = claimBatch(columns)) hashRange(columns, b[0], b[1], xx, errors);
parentPort!.postMessage({ errors: [...errors] });

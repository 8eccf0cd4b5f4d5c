/**
 * The account's plan pool (account.get's quota). Deployments draw their size from it:
 * create takes the default size, resize trades the old size for the new one.
 */
import type { EmulatorCore } from './context.js';

export interface PoolSize {
  ramMB: number;
  cpuPercent: number;
  storageMB: number;
  slots: number;
}

/**
 * A pool whose equal share per slot is the default size (8192 / 32 = 256 MB, the
 * document's default), so a create without a size gets 256 MB until the pool is spent
 * unevenly; room for tests to give several deployments 1 GB, small enough that
 * over-asking is refused.
 */
export const EMULATED_POOL: PoolSize = { ramMB: 8192, cpuPercent: 3200, storageMB: 163840, slots: 32 };

export function quotaUsed(core: EmulatorCore, exceptId?: string): PoolSize {
  const used: PoolSize = { ramMB: 0, cpuPercent: 0, storageMB: 0, slots: 0 };
  for (const d of core.deployments.values()) {
    if (d.id === exceptId) continue;
    used.ramMB += d.resources.ramMB;
    used.cpuPercent += d.resources.cpuPercent;
    used.storageMB += d.resources.storageMB;
    used.slots += 1;
  }
  return used;
}

/** What is still free, not counting deployment `exceptId` (whose size is about to be replaced). */
export function quotaLeft(core: EmulatorCore, exceptId?: string): PoolSize {
  const used = quotaUsed(core, exceptId);
  return {
    ramMB: EMULATED_POOL.ramMB - used.ramMB,
    cpuPercent: EMULATED_POOL.cpuPercent - used.cpuPercent,
    storageMB: EMULATED_POOL.storageMB - used.storageMB,
    slots: EMULATED_POOL.slots - used.slots,
  };
}

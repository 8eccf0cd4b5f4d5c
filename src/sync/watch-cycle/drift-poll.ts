/**
 * Watch's drift poll: ONE files.index per poll, whatever the size of the tree
 * (drift-rotation.ts says which read and why). A complete answer is merged like a watch
 * cycle's pre-read (scoped-sync.ts mergeRead): drift and conflicts are reported, writes
 * still unverified inside it are verified, and a local change found there is written
 * through the same three-way merge. A region that comes back truncated (the remote grew)
 * is completed folder by folder, never taken as complete, and the partition is planned
 * again at the next round.
 *
 * The state lives in `.hostsync/<deployment>/drift.json` (state/drift.ts), saved after each
 * poll, once the base holding what the poll merged is on disk.
 */
import { DriftStore } from '../../state/drift.js';
import { createIgnoreMatcher } from '../../local/ignore.js';
import type { Snapshot } from '../../model/types.js';
import type { IndexResult } from '../../api/types.js';
import { completeTruncated, indexRequestKey, RemoteTree } from '../remote-read/remote-read.js';
import {
  freshDriftState, nextDriftStep, onOwnWrite, onRegionAnswer, onRootAnswer, onRootMerged, planDriftRegions, regionHas, setRegions,
  type DriftRegion, type DriftState,
} from './drift-rotation.js';
import type { PushReport } from '../push/push-report.js';
import type { ScopedCycleOptions, ReadRegion, ScopedSync } from './scoped-sync.js';
import type { Session } from '../session.js';
import { INDEX_HASH_MAX_BYTES } from '../tunables.js';

export type DriftPollOptions = Omit<ScopedCycleOptions, 'paths'>;

export interface DriftPollResult {
  /** The merge of what the read brought; null when nothing came back to merge (unchanged, or a root read starting a round). */
  report: PushReport | null;
  /** Drift or conflicts differ from what this read last reported: a human should see it. */
  news: boolean;
  /** What was read, for logs and tests: 'root' or 'region i/n'. */
  read: string;
}

const everything: ReadRegion = { has: () => true, restrict: (s) => new Map(s ?? []) };

function regionFilter(region: DriftRegion): ReadRegion {
  const units = new Set(region.units);
  return {
    has: (p) => regionHas(region, units, p),
    restrict: (s) => {
      const out: Snapshot = new Map();
      if (s) for (const [p, e] of s) if (regionHas(region, units, p)) out.set(p, e);
      return out;
    },
  };
}

const signatureOf = (r: PushReport): string =>
  JSON.stringify([r.conflicts.map((c) => [c.path, c.reason]), r.drift.map((d) => [d.path, d.kind])]);

export class DriftPoll {
  private readonly store: DriftStore;
  private state: DriftState | null = null;
  private loaded = false;
  /** Per read ('root', region index): the drift and conflicts it last reported. */
  private readonly reported = new Map<string, string>();

  constructor(
    private readonly session: Session,
    private readonly scoped: ScopedSync,
  ) {
    this.store = new DriftStore(session.stateDir, session.config.deploymentId);
  }

  private get requestKey(): string {
    return indexRequestKey([...this.session.matcher.patterns]);
  }

  /** True when a watch of this root synced with these ignore rules before (the rotation can go on from where it stood). */
  async known(): Promise<boolean> {
    if (!this.loaded) {
      this.loaded = true;
      const saved = await this.store.load();
      this.state = saved && saved.requestKey === this.requestKey ? saved : null;
    }
    return this.state !== null;
  }

  /** After a push that read the whole remote: its stored root digest is trusted (push merged every part of that read). */
  async afterWholeRead(): Promise<void> {
    await this.known();
    const remote = (await this.session.store.load()).remote;
    const digest = remote && remote.requestKey === this.requestKey ? remote.digest : null;
    const s = this.state ?? freshDriftState(this.requestKey, digest);
    s.trusted = digest;
    s.lastRoot = digest;
    s.candidate = null;
    s.cursor = s.regions.length;
    this.state = s;
    this.reported.clear();
    await this.save();
  }

  /** A cycle of ours wrote to the deployment. */
  ownWrite(): void {
    if (this.state) onOwnWrite(this.state);
  }

  async save(): Promise<void> {
    if (this.state) await this.store.save(this.state).catch(() => undefined);
  }

  /**
   * One poll. Null when the rotation cannot be planned (the pattern budget, no known state):
   * the caller then reads the whole remote as push does.
   */
  async poll(local: Snapshot, opts: DriftPollOptions): Promise<DriftPollResult | null> {
    if (!(await this.known())) return null;
    const s = this.state!;
    const step = nextDriftStep(s);
    const { client, matcher } = this.session;
    const user = [...matcher.patterns];
    let result: DriftPollResult;
    if (step.kind === 'root') {
      const res = await client.files.index({ ignore: user, hashMaxBytes: INDEX_HASH_MAX_BYTES, ...(step.digest !== null ? { digest: step.digest } : {}) });
      const next = onRootAnswer(s, step.trusted, { unchanged: res.unchanged, digest: res.digest, truncated: res.truncated, entries: res.entries.length });
      result = { report: null, news: false, read: 'root' };
      if (next === 'merge') {
        result = await this.merge('root', everything, res, user, opts);
        onRootMerged(s, res.digest);
      } else if (next === 'plan') {
        const planned = planDriftRegions(new Set([...this.scoped.basePaths(), ...local.keys()]), s.cap!);
        if (planned === null) {
          // Too many folders for the pattern budget: this tree is read whole, as before.
          this.state = null;
          await this.store.save(freshDriftState('', null)).catch(() => undefined);
          return null;
        }
        setRegions(s, planned);
      }
    } else {
      const ignore = [...user, ...step.region.extra];
      const res = await client.files.index({ ignore, hashMaxBytes: INDEX_HASH_MAX_BYTES, ...(step.region.digest !== null ? { digest: step.region.digest } : {}) });
      const read = `region ${step.index + 1}/${s.regions.length}`;
      result = res.unchanged && step.region.digest !== null ? { report: null, news: false, read } : await this.merge(String(step.index), regionFilter(step.region), res, ignore, opts);
      result.read = read;
      onRegionAnswer(s, step.index, { unchanged: res.unchanged, digest: res.digest, truncated: res.truncated, entries: res.entries.length });
    }
    // The base holding what was merged goes to disk before the digests that skip it next time.
    await this.scoped.flush();
    await this.save();
    return result;
  }

  private async merge(key: string, region: ReadRegion, res: IndexResult, ignore: string[], opts: DriftPollOptions): Promise<DriftPollResult> {
    const { client } = this.session;
    const readMatcher = createIgnoreMatcher(ignore);
    const tree = new RemoteTree(readMatcher);
    tree.add(res.entries);
    if (res.truncated) await completeTruncated(client, tree, ignore, '', res.entries, readMatcher);
    const { snapshot, symlinks, leftovers } = tree.result();
    // Archives a killed push left (ours by name, served by static runtimes): removed, as push does.
    if (leftovers.length > 0) {
      await client.files.delete(leftovers);
      this.ownWrite();
    }
    const report = await this.scoped.mergeRead(region, { snapshot: region.restrict(snapshot), symlinks }, opts);
    if (report.plan.steps.length > 0) this.ownWrite();
    const signature = signatureOf(report);
    const news = signature !== (this.reported.get(key) ?? signatureOf({ ...report, conflicts: [], drift: [] }));
    this.reported.set(key, signature);
    return { report, news, read: key };
  }
}

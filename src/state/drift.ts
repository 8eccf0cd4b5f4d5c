/**
 * Where watch's drift rotation stands (sync/watch-cycle/drift-rotation.ts), in
 * `.hostsync/<deployment>/drift.json`: the partition of the tree into reads under the
 * server's cap, each read's last digest, and the trusted root digest.
 *
 * Small (patterns and digests, no entries) and apart from state.bin. Every digest here is
 * only a change detector: a lost or stale file costs reads, never safety (a stale digest
 * answers `changed`; the writes of a cycle are preceded by a read of their own paths).
 * Its presence also says a watch of this root has synced with these ignore rules, which
 * lets a restart sync its local edits with scoped reads.
 */
import { mkdir, readFile } from 'node:fs/promises';
import path from 'node:path';
import * as v from 'valibot';
import { writeFileAtomic } from '../local/atomic-write.js';

const VERSION = 1;

const digest = v.nullable(v.string());
const RecordSchema = v.object({
  requestKey: v.string(),
  cap: v.nullable(v.pipe(v.number(), v.integer(), v.minValue(1))),
  regions: v.array(v.object({ extra: v.array(v.string()), units: v.array(v.string()), kind: v.picklist(['only', 'except']), digest })),
  trusted: digest,
  candidate: digest,
  lastRoot: digest,
  cursor: v.pipe(v.number(), v.integer(), v.minValue(0)),
  replan: v.boolean(),
});
const FileSchema = v.object({ version: v.literal(VERSION), deploymentId: v.string(), state: RecordSchema });

/** The persisted form; the sync layer owns its meaning (DriftState). */
export type DriftRecord = v.InferOutput<typeof RecordSchema>;

export class DriftStore {
  constructor(
    readonly dir: string,
    readonly deploymentId: string,
  ) {}

  get file(): string {
    return path.join(this.dir, 'drift.json');
  }

  /** Null when absent, unreadable, or another version or deployment's. */
  async load(): Promise<DriftRecord | null> {
    try {
      const parsed = v.safeParse(FileSchema, JSON.parse(await readFile(this.file, 'utf8')));
      return parsed.success && parsed.output.deploymentId === this.deploymentId ? parsed.output.state : null;
    } catch {
      return null;
    }
  }

  async save(state: DriftRecord): Promise<void> {
    await mkdir(this.dir, { recursive: true });
    await writeFileAtomic(this.file, JSON.stringify({ version: VERSION, deploymentId: this.deploymentId, state }));
  }
}

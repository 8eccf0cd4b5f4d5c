/**
 * The git stamp a recorded batch carries (state/base-record.ts GitStamp, the `g` marks):
 * what lets another copy tell "behind" from "ahead" (copy-position.ts) and know which files
 * this copy had from its commit (copy-base.ts). Asked of git only when a batch is recorded.
 *
 * A path is "from the commit" when git tracks it, or, for a project whose synced `dir` is
 * its build's output (hostsync.json "dir" + "build"), when the build made it: such a folder
 * is usually git-ignored, yet it is what the commit deploys. A file listed in "sendSecrets"
 * never is: it was sent on purpose from this machine, and a clone that lacks it must not
 * delete it.
 */
import { gitClean, gitTracked, type GitHead } from '../../local/git.js';
import { projectRootOf, type Config } from '../../config/config.js';
import type { BatchStamp } from './remote-record.js';
import { GIT_SUBJECT_MAX } from '../../state/base-record.js';

export async function batchStamp(
  config: Pick<Config, 'root' | 'projectRoot' | 'build' | 'sendSecrets'>,
  head: GitHead | null,
  opts: {
    /** A watch's batch: never "clean" (it deploys saves, not a commit). */
    watch?: boolean;
    /** The batch's paths, asked of git alone when few; null: the whole base (a record written anew). */
    paths: readonly string[] | null;
    /** `git status` asked already (a push starts it beside its scan). */
    clean?: Promise<boolean | null>;
  },
): Promise<BatchStamp | null> {
  if (head === null) return null;
  const [clean, tracked] = await Promise.all([opts.watch ? false : (opts.clean ?? gitClean(config.root)), gitTracked(config.root, opts.paths)]);
  const secrets = new Set(config.sendSecrets);
  const built = typeof config.build === 'string' && config.build !== '' && projectRootOf(config) !== config.root;
  return {
    git: { head: head.head, clean: clean === true, time: head.time, anc: head.anc, ...(head.subject !== '' ? { subject: head.subject.slice(0, GIT_SUBJECT_MAX) } : {}) },
    fromCommit: (p) => !secrets.has(p) && (built || (tracked?.(p) ?? false)),
  };
}

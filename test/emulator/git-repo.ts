/** A local git repository (the emulator's stand-in for a GitHub repository), made with the git CLI. */
import { execFileSync } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import path from 'node:path';
import { runDir } from '../helpers/tree.js';

function gitIn(dir: string, ...args: string[]): string {
  return execFileSync('git', args, { cwd: dir, env: { PATH: process.env.PATH ?? '', HOME: dir, GIT_AUTHOR_NAME: 't', GIT_AUTHOR_EMAIL: 't@t', GIT_COMMITTER_NAME: 't', GIT_COMMITTER_EMAIL: 't@t' } }).toString().trim();
}

/** A second commit on the repository's current branch. */
export function commitTo(dir: string, name: string, content: string): void {
  writeFileSync(path.join(dir, name), content);
  gitIn(dir, 'add', '-A');
  gitIn(dir, 'commit', '-q', '-m', `edit ${name}`);
}

export async function makeRepo(files: Record<string, string> = { 'index.js': 'console.log("from git")\n', 'README.md': '# repo\n' }): Promise<string> {
  const dir = runDir('repo-');
  const git = (...args: string[]): string => gitIn(dir, ...args);
  git('init', '-q', '-b', 'main');
  for (const [name, content] of Object.entries(files)) writeFileSync(path.join(dir, name), content);
  git('add', '-A');
  git('commit', '-q', '-m', 'first');
  return dir;
}

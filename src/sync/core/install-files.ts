/**
 * Files the deployment's own install rewrites: the service's Node runtime runs `npm install`
 * at the volume root at every start when there is a package.json (hosting-api.md,
 * startCommand: "the runtime default (which installs from package.json ...)"), and npm
 * rewrites the root's lockfile as it does, whatever this folder committed. Such a file
 * changed on the deployment is not someone's edit. A push whose local lockfile changed too
 * (new dependencies) writes it (the install then installs what it locks), rather than
 * stopping at a conflict; changed there only, it is drift left alone, named for what it is.
 */
import type { Snapshot } from '../../model/types.js';

/** Lockfiles `npm install` rewrites, at the volume root only (the install runs there). */
export const INSTALL_LOCKFILES: readonly string[] = ['package-lock.json', 'npm-shrinkwrap.json'];

export const isInstallLockfile = (path: string): boolean => INSTALL_LOCKFILES.includes(path);

/** Whether the deployment's install rewrites `path`: a root lockfile of a folder with a package.json. */
export function installRewrites(path: string, local: Snapshot): boolean {
  return isInstallLockfile(path) && local.has('package.json');
}

/**
 * The one line hostsync gives for a deployment too small for its install (hosting-api.md:
 * 512 MB for npm install of a modern stack, 1024 MB for a Svelte/Next build; at the 256
 * MB default the install is killed with exit 137 and "Out of memory: true"). The cause
 * and the fix in one line, the same from push's health report and from doctor.
 */
import { BUILD_RAM_MB, NPM_INSTALL_RAM_MB, npmInstallNeed } from '../../api/memory.js';

/** The fix: hostsync.json's size (push applies it) or deployments.resize. */
export function memoryFix(needMB: number): string {
  return `resize the deployment to at least ${needMB} MB ("size": {"ramMB": ${needMB}} in hostsync.json, or deployments.resize)`;
}

/** The line of a start the out-of-memory killer ended ("Out of memory: true", as Wings prints it), or undefined. */
export function outOfMemoryLine(lines: readonly string[]): string | undefined {
  return lines.find((l) => /Out of memory: true/i.test(l));
}

/**
 * The reason of an unhealthy verdict for a start ended by the out-of-memory killer. The
 * RAM it needs is read from the line when the node names it ("needs 1024 MB"), else
 * the document's figure for npm install.
 */
export function outOfMemoryReason(line: string): string {
  const named = /needs (\d+) MB/.exec(line);
  const need = named ? Number(named[1]) : NPM_INSTALL_RAM_MB;
  const build = named ? '' : ` (${BUILD_RAM_MB} MB for a Svelte/Next build)`;
  return `the install was killed for want of memory (exit 137, "Out of memory: true"): ${memoryFix(need)}${build}`;
}

/**
 * Before a start: the line naming an install the deployment is too small for, or null.
 * For push (the deployment as code) and any command that holds both the project's
 * package.json and the deployment's size.
 */
export function undersizedInstall(packageJson: string, ramMB: number): string | null {
  const need = npmInstallNeed(packageJson);
  if (need === null || ramMB >= need.needMB) return null;
  return `the deployment has ${ramMB} MB RAM and ${need.what} needs ${need.needMB} MB or more (it would be killed with exit 137, "Out of memory: true"): ${memoryFix(need.needMB)}`;
}

/**
 * The document's memory guidance as one rule both sides apply (hosting-api.md,
 * deployments.create / deployments.resize / Limits): a new deployment's default size is
 * 256 MB (or less, when the equal share of the free pool is smaller); `npm install` of a
 * modern stack needs 512 MB or more and is killed at the 256 default with exit 137 and
 * "Out of memory: true"; a Svelte/Next build needs 1024 MB or more.
 *
 * The emulator kills an install by this rule (a real install's peak memory varies too
 * much to meter, so the outcome must not depend on the machine); hostsync names the
 * cause and the fix from the same rule before the first start. Pure: a manifest's text in.
 */

/** The document's default size of a new deployment. */
export const DEFAULT_RAM_MB = 256;

/** npm install of a modern stack (hosting-api.md, Limits, "Memory guidance"). */
export const NPM_INSTALL_RAM_MB = 512;

/** A Svelte/Next build (same row of the document). */
export const BUILD_RAM_MB = 1024;

/**
 * Dependencies whose presence makes the install a "Svelte/Next build": the two the
 * document names and the frameworks of the same kind (a bundling build in the install's
 * footprint). Listed, not guessed, so both sides agree.
 */
export const BUILD_FRAMEWORKS: readonly string[] = ['next', 'svelte', '@sveltejs/kit', 'nuxt', '@angular/core', 'astro', 'gatsby', '@remix-run/dev', 'vite'];

/** The fields npm install fills node_modules/ from (dev dependencies included: the default install takes them). */
const DEPENDENCY_FIELDS = ['dependencies', 'devDependencies', 'optionalDependencies'] as const;

export interface InstallMemoryNeed {
  /** RAM below which the install is killed (exit 137). */
  needMB: number;
  /** What the need is for, for one-line messages: "npm install" or "npm install of a next build". */
  what: string;
  /** The dependency that made it a build, or null. */
  framework: string | null;
  /** How many dependencies package.json lists. */
  dependencies: number;
}

/** The dependency names a package.json lists; null when it is not a JSON object (npm will say what is wrong with it). */
export function dependencyNames(packageJson: string): string[] | null {
  let pkg: unknown;
  try {
    pkg = JSON.parse(packageJson);
  } catch {
    return null;
  }
  if (pkg === null || typeof pkg !== 'object' || Array.isArray(pkg)) return null;
  const names = new Set<string>();
  for (const field of DEPENDENCY_FIELDS) {
    const deps = (pkg as Record<string, unknown>)[field];
    if (deps !== null && typeof deps === 'object') for (const name of Object.keys(deps)) names.add(name);
  }
  return [...names];
}

/**
 * What `npm install` of this package.json needs, by the rule: no dependency, no install
 * (null); a Svelte/Next-class framework among them, BUILD_RAM_MB; any other dependency,
 * NPM_INSTALL_RAM_MB (every install the node runs is a modern stack's: npm itself and
 * its tree resolution are what the 256 MB default cannot hold). An unparsable manifest
 * needs nothing: npm fails on it before it spends memory.
 */
export function npmInstallNeed(packageJson: string): InstallMemoryNeed | null {
  const names = dependencyNames(packageJson);
  if (names === null || names.length === 0) return null;
  const framework = BUILD_FRAMEWORKS.find((f) => names.includes(f)) ?? null;
  return framework === null
    ? { needMB: NPM_INSTALL_RAM_MB, what: 'npm install', framework, dependencies: names.length }
    : { needMB: BUILD_RAM_MB, what: `npm install of a ${framework} build`, framework, dependencies: names.length };
}

/** A new deployment's RAM when create names none: the 256 MB default, or the equal share of the free pool when that is smaller. */
export function defaultRamMB(freeRamMB: number, freeSlots: number): number {
  if (freeSlots <= 0) return 0;
  return Math.min(DEFAULT_RAM_MB, Math.floor(freeRamMB / freeSlots));
}

/**
 * Whether hostsync runs in a CI job: the `CI` variable that GitHub Actions, GitLab CI,
 * CircleCI, Buildkite, Travis and others set. There nothing is asked, nothing is
 * coloured, and progress comes in coarse lines rather than a redrawn bar, even when the
 * runner fakes a terminal. `CI=false` or `CI=0` says it is not.
 */
export function isCI(env: NodeJS.ProcessEnv = process.env): boolean {
  const ci = env.CI;
  return ci !== undefined && ci !== '' && ci !== 'false' && ci !== '0';
}

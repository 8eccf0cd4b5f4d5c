/**
 * The environment an emulated app (and its install) runs with: a few of the emulator's own
 * variables, never its credentials; the deployment's variables; then what the node sets for
 * every server, which the user's cannot override.
 */
import os from 'node:os';
import { delimiter, dirname, join } from 'node:path';

/** Environment variables passed through from the emulator; everything else (credentials included) stays out of the app. */
const INHERITED_ENV = ['PATH', 'LANG', 'LC_ALL', 'TZ', 'TMPDIR'];
/** This machine's toolchain homes, each from its variable or its default under the machine's home (see appEnvOf). */
const HOST_TOOL_HOMES: ReadonlyArray<readonly [string, string]> = [['RUSTUP_HOME', '.rustup'], ['CARGO_HOME', '.cargo']];

/** `volume`: the container's home; `user`: the deployment's variables; `system`: the node's (SERVER_PORT...). */
export function appEnvOf(volume: string, user: Record<string, string>, system: Record<string, string>): Record<string, string> {
  const env: Record<string, string> = {};
  for (const name of INHERITED_ENV) {
    const value = process.env[name];
    if (value !== undefined) env[name] = value;
  }
  // `node` in a startCommand must resolve to the binary startup() reports.
  env.PATH = [dirname(process.execPath), env.PATH].filter(Boolean).join(delimiter);
  // The container's home is the volume (/home/container on the node).
  env.HOME = volume;
  // But the toolchains the emulator borrows from this machine keep their state where this
  // machine has it: a container has no rustup of the host's, and with HOME the volume a
  // rustup proxy (a pip install building a Rust wheel) wrote .rustup/settings.toml into it,
  // which every sync then listed as a file only the deployment has (issue 46).
  for (const [name, dir] of HOST_TOOL_HOMES) env[name] = process.env[name] ?? join(os.homedir(), dir);
  Object.assign(env, user);
  // What the node sets for every server; the user's variables cannot override them.
  Object.assign(env, system);
  return env;
}

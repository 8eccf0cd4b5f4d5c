/**
 * Runs GitHub Actions steps (a composite action.yml, or a workflow job's steps) and GitLab
 * `script:` lists the way their runners do, so tests exercise the YAML users copy, not a
 * re-typed version of it. Only the subset our files use: block mappings and sequences,
 * `|` block scalars, `[a, b]` / `{k: v}` flow collections, quoted and plain scalars,
 * comments; expressions `${{ inputs.X }}`, `${{ steps.ID.outputs.X }}`, `${{ secrets.X }}`,
 * `${{ github.* }}`, `${{ runner.temp }}`, `${{ env.X }}`.
 */
import { spawn } from 'node:child_process';
import { readFile, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { runDir } from './tree.js';

export type Yaml = string | null | Yaml[] | { [key: string]: Yaml };
type YamlMap = { [key: string]: Yaml };

const KEY = /^([A-Za-z0-9_.$-]+|"[^"]*"|'[^']*'):(?:[ \t]+(.*))?$/;

export function parseYaml(src: string): Yaml {
  const raw = src.split('\n');
  let i = 0;
  const indentOf = (l: string): number => l.length - l.trimStart().length;
  const skip = (): void => {
    while (i < raw.length && (/^\s*$/.test(raw[i]!) || /^\s*#/.test(raw[i]!))) i++;
  };
  const isItem = (l: string): boolean => /^\s*-(\s|$)/.test(l);

  function block(min: number): Yaml {
    skip();
    if (i >= raw.length || indentOf(raw[i]!) < min) return null;
    const ind = indentOf(raw[i]!);
    return isItem(raw[i]!) ? seq(ind) : map(ind);
  }

  function seq(ind: number): Yaml[] {
    const out: Yaml[] = [];
    for (;;) {
      skip();
      if (i >= raw.length || indentOf(raw[i]!) !== ind || !isItem(raw[i]!)) return out;
      const text = raw[i]!.trimStart().slice(1).trimStart();
      i++;
      if (text === '') out.push(block(ind + 1));
      else if (KEY.test(stripComment(text))) out.push(map(ind + 2, text));
      else out.push(scalar(text));
    }
  }

  function map(ind: number, first?: string): YamlMap {
    const out: YamlMap = {};
    let pending = first;
    for (;;) {
      let text: string;
      if (pending !== undefined) {
        text = pending;
        pending = undefined;
      } else {
        skip();
        if (i >= raw.length || indentOf(raw[i]!) !== ind || isItem(raw[i]!)) return out;
        text = raw[i]!.trim();
        i++;
      }
      const m = KEY.exec(stripComment(text));
      if (!m) throw new Error(`yaml subset: cannot read line ${i}: ${text}`);
      const key = unquote(m[1]!);
      const rest = (m[2] ?? '').trim();
      if (rest === '|' || rest === '|-') out[key] = blockScalar(ind, rest === '|');
      else if (rest !== '') out[key] = scalar(rest);
      else {
        skip();
        // A sequence may sit at its key's own indent ("key:\n- a").
        out[key] = i < raw.length && indentOf(raw[i]!) === ind && isItem(raw[i]!) ? seq(ind) : block(ind + 1);
      }
    }
  }

  function blockScalar(keyIndent: number, keepNewline: boolean): string {
    const lines: string[] = [];
    while (i < raw.length && (/^\s*$/.test(raw[i]!) || indentOf(raw[i]!) > keyIndent)) lines.push(raw[i++]!);
    while (lines.length > 0 && /^\s*$/.test(lines.at(-1)!)) lines.pop();
    const content = Math.min(...lines.filter((l) => l.trim() !== '').map(indentOf));
    const text = lines.map((l) => l.slice(content)).join('\n');
    return keepNewline ? `${text}\n` : text;
  }

  return block(0);
}

/** Drops a trailing ` # comment` outside quotes. */
function stripComment(s: string): string {
  let quote: string | null = null;
  for (let k = 0; k < s.length; k++) {
    const c = s[k]!;
    if (quote) {
      if (c === quote) quote = null;
    } else if (c === '"' || c === "'") {
      if (k === 0 || /\s|[[{,:]/.test(s[k - 1]!)) quote = c;
    } else if (c === '#' && (k === 0 || /\s/.test(s[k - 1]!))) {
      return s.slice(0, k).trimEnd();
    }
  }
  return s;
}

function unquote(s: string): string {
  if (s.length >= 2 && ((s.startsWith('"') && s.endsWith('"')) || (s.startsWith("'") && s.endsWith("'")))) {
    return s.startsWith("'") ? s.slice(1, -1).replace(/''/g, "'") : JSON.parse(s) as string;
  }
  return s;
}

function scalar(text: string): Yaml {
  const s = stripComment(text).trim();
  if (s.startsWith('[') && s.endsWith(']')) return splitFlow(s.slice(1, -1)).map((x) => unquote(x));
  if (s.startsWith('{') && s.endsWith('}')) {
    const out: YamlMap = {};
    for (const pair of splitFlow(s.slice(1, -1))) {
      const at = pair.indexOf(':');
      out[unquote(pair.slice(0, at).trim())] = unquote(pair.slice(at + 1).trim());
    }
    return out;
  }
  return unquote(s);
}

function splitFlow(s: string): string[] {
  return s.split(',').map((x) => x.trim()).filter((x) => x !== '');
}

/** The `${{ ... }}` expressions of our YAML, resolved from `ctx`; anything else is an error. */
export function expand(value: string, ctx: Record<string, Record<string, string>>): string {
  return value.replace(/\$\{\{\s*([^}]+?)\s*\}\}/g, (_, expr: string) => {
    const m = /^(inputs|secrets|github|runner|env)\.([\w-]+)$|^steps\.([\w-]+)\.outputs\.([\w-]+)$/.exec(expr);
    if (!m) throw new Error(`expression not supported by the test runner: ${expr}`);
    if (m[3]) return ctx[`steps.${m[3]}`]?.[m[4]!] ?? '';
    const v = ctx[m[1]!]?.[m[2]!];
    if (v === undefined && m[1] !== 'env') throw new Error(`unknown ${expr}`);
    return v ?? '';
  });
}

/** `name=value` lines and `name<<DELIM` heredocs, as $GITHUB_OUTPUT and $GITHUB_ENV hold them. */
export function parseCommandFile(text: string): Record<string, string> {
  const out: Record<string, string> = {};
  const lines = text.split('\n');
  for (let k = 0; k < lines.length; k++) {
    const line = lines[k]!;
    if (line === '') continue;
    const heredoc = /^([^=]+)<<(.+)$/.exec(line);
    if (heredoc) {
      const body: string[] = [];
      while (++k < lines.length && lines[k] !== heredoc[2]) body.push(lines[k]!);
      out[heredoc[1]!] = body.join('\n');
      continue;
    }
    const at = line.indexOf('=');
    out[line.slice(0, at)] = line.slice(at + 1);
  }
  return out;
}

export interface ShellResult {
  code: number;
  stdout: string;
  stderr: string;
}

/** GitHub's `shell: bash` (bash --noprofile --norc -eo pipefail {0}); GitLab's bash scripts also run with -eo pipefail. */
export function bash(script: string, env: Record<string, string>, cwd: string): Promise<ShellResult> {
  return new Promise((resolve, reject) => {
    const child = spawn('bash', ['--noprofile', '--norc', '-eo', 'pipefail', '-c', script], { env, cwd, stdio: ['ignore', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (d) => (stdout += d));
    child.stderr.on('data', (d) => (stderr += d));
    child.on('error', reject);
    child.on('exit', (code, signal) => resolve({ code: code ?? (signal ? 128 : 1), stdout, stderr }));
  });
}

export interface Runner {
  temp: string;
  workspace: string;
  /** GITHUB_* and RUNNER_* as a hosted runner sets them for every step. */
  env: Record<string, string>;
}

export async function githubRunner(workspace: string, base: Record<string, string>): Promise<Runner> {
  const temp = runDir('runner-');
  const env: Record<string, string> = {
    ...base,
    CI: 'true',
    GITHUB_ACTIONS: 'true',
    GITHUB_WORKSPACE: workspace,
    GITHUB_REPOSITORY: 'acme/site',
    GITHUB_SHA: '0'.repeat(40),
    GITHUB_REF: 'refs/heads/main',
    GITHUB_EVENT_NAME: 'push',
    GITHUB_RUN_ID: '1',
    GITHUB_JOB: 'deploy',
    RUNNER_OS: 'Linux',
    RUNNER_TEMP: temp,
  };
  return { temp, workspace, env };
}

export interface StepRun extends ShellResult {
  id: string | null;
  name: string;
  outputs: Record<string, string>;
  summary: string;
  skipped: boolean;
}

/**
 * Runs `steps` as a job runs them: each step its own $GITHUB_OUTPUT, $GITHUB_STEP_SUMMARY,
 * $GITHUB_ENV and $GITHUB_PATH files; what a step adds to $GITHUB_ENV is in the next
 * steps' environment; after a failure only `if: always()` / `failure()` steps run.
 * `uses` steps go to `onUses` (a test stands in for actions/checkout and the like).
 */
export async function runSteps(
  steps: YamlMap[],
  runner: Runner,
  ctx: Record<string, Record<string, string>>,
  opts: {
    jobEnv?: Record<string, string>;
    /** Runs a `uses` step (its `with` already expanded); may hand back its outputs and exit code. */
    onUses?: (uses: string, withInputs: Record<string, string>) => Promise<{ code: number; outputs: Record<string, string>; stdout?: string } | void>;
    extraEnv?: Record<string, string>;
    /** A `run` script the test must replace (e.g. `npm ci`, which needs the registry): returns the stand-in, or undefined. */
    standIn?: (script: string) => string | undefined;
  } = {},
): Promise<{ steps: StepRun[]; failed: boolean }> {
  const out: StepRun[] = [];
  let failed = false;
  const added: Record<string, string> = {};
  for (const [n, step] of steps.entries()) {
    const name = String(step.name ?? step.uses ?? step.run ?? `step ${n}`);
    const id = typeof step.id === 'string' ? step.id : null;
    const cond = typeof step.if === 'string' ? step.if.replace(/^\$\{\{\s*|\s*\}\}$/g, '') : 'success()';
    const runs = failed ? /always\(\)|failure\(\)/.test(cond) : !/^failure\(\)$/.test(cond);
    if (!runs) {
      out.push({ id, name, code: 0, stdout: '', stderr: '', outputs: {}, summary: '', skipped: true });
      continue;
    }
    if (typeof step.uses === 'string') {
      const withInputs: Record<string, string> = {};
      for (const [k, v] of Object.entries((step.with ?? {}) as YamlMap)) withInputs[k] = expand(String(v ?? ''), ctx);
      const res = (await opts.onUses?.(step.uses, withInputs)) ?? { code: 0, outputs: {} };
      if (id) ctx[`steps.${id}`] = res.outputs;
      out.push({ id, name, code: res.code, stdout: res.stdout ?? '', stderr: '', outputs: res.outputs, summary: '', skipped: false });
      if (res.code !== 0) failed = true;
      continue;
    }
    const files = { output: `output_${n}`, summary: `summary_${n}`, env: `env_${n}`, path: `path_${n}` };
    for (const f of Object.values(files)) await writeFile(path.join(runner.temp, f), '');
    const stepEnv: Record<string, string> = {};
    for (const [k, v] of Object.entries((step.env ?? {}) as YamlMap)) stepEnv[k] = expand(String(v ?? ''), { ...ctx, env: { ...runner.env, ...added } });
    const env = {
      ...runner.env,
      ...opts.jobEnv,
      ...added,
      ...stepEnv,
      ...opts.extraEnv,
      GITHUB_OUTPUT: path.join(runner.temp, files.output),
      GITHUB_STEP_SUMMARY: path.join(runner.temp, files.summary),
      GITHUB_ENV: path.join(runner.temp, files.env),
      GITHUB_PATH: path.join(runner.temp, files.path),
    };
    const written = expand(String(step.run), ctx);
    const script = opts.standIn?.(written.trim()) ?? written;
    const res = await bash(script, env, runner.workspace);
    const outputs = parseCommandFile(await readFile(env.GITHUB_OUTPUT, 'utf8'));
    Object.assign(added, parseCommandFile(await readFile(env.GITHUB_ENV, 'utf8')));
    if (id) ctx[`steps.${id}`] = outputs;
    out.push({ id, name, ...res, outputs, summary: await readFile(env.GITHUB_STEP_SUMMARY, 'utf8'), skipped: false });
    if (res.code !== 0) failed = true;
  }
  return { steps: out, failed };
}

/**
 * A composite action as `uses: ./` runs it: its inputs (defaults, then `with`), its steps
 * with github.action_path, and its outputs from the steps'. The action fails with the
 * first failing step's exit code.
 */
export async function runCompositeAction(
  actionDir: string,
  withInputs: Record<string, string>,
  runner: Runner,
): Promise<{ outputs: Record<string, string>; code: number; stdout: string; stderr: string; summary: string }> {
  const action = parseYaml(await readFile(path.join(actionDir, 'action.yml'), 'utf8')) as YamlMap;
  const runs = action.runs as YamlMap;
  if (runs.using !== 'composite') throw new Error('not a composite action');
  const inputs: Record<string, string> = {};
  for (const [k, spec] of Object.entries(action.inputs as YamlMap)) inputs[k] = String((spec as YamlMap).default ?? '');
  for (const [k, v] of Object.entries(withInputs)) {
    if (!(k in inputs)) throw new Error(`action.yml has no input ${k}`);
    inputs[k] = v;
  }
  const ctx: Record<string, Record<string, string>> = { inputs, github: { action_path: actionDir, workspace: runner.workspace }, runner: { temp: runner.temp } };
  const { steps } = await runSteps(runs.steps as YamlMap[], runner, ctx, { extraEnv: { GITHUB_ACTION_PATH: actionDir } });
  const outputs: Record<string, string> = {};
  for (const [k, spec] of Object.entries(action.outputs as YamlMap)) outputs[k] = expand(String((spec as YamlMap).value), ctx);
  const failedStep = steps.find((s) => !s.skipped && s.code !== 0);
  return {
    outputs,
    code: failedStep?.code ?? 0,
    stdout: steps.map((s) => s.stdout).join(''),
    stderr: steps.map((s) => s.stderr).join(''),
    summary: steps.map((s) => s.summary).join(''),
  };
}

#!/usr/bin/env node
/**
 * The logic of the GitHub Action (action.yml at the repository root): runs
 * `hostsync push --json` from the action's own checkout, then speaks the runner's
 * protocol: outputs (`healthy`, `url`, `exit-code`, `result`) appended to $GITHUB_OUTPUT,
 * a job summary appended to $GITHUB_STEP_SUMMARY, and `::error` annotations naming each
 * conflict, or the crash, on stdout. It exits with hostsync's own exit code (DESIGN.md:
 * 0 done and healthy, 1 failed, 2 configuration, 3 refused, 4 unhealthy), so the step
 * fails exactly when the push did.
 *
 * Inputs come as INPUT_* variables that action.yml's step sets from its `inputs`
 * (a composite action does not set them by itself); run by hand with them, it works on a
 * laptop too (docs/ci.md, "Trying the action on a laptop"). Plain Node, no dependency: it runs
 * before anything but the CLI's build exists, and tests run it as a runner would.
 */
import { spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { appendFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const here = path.dirname(fileURLToPath(import.meta.url));
const CLI = path.resolve(here, '../dist/bin/hostsync.js');
/** Conflicts and log lines shown before "+N more": a summary is read, not searched. */
const SHOWN = 20;

const env = process.env;
const input = (name) => (env[`INPUT_${name.toUpperCase().replace(/-/g, '_')}`] ?? '').trim();
const yes = (name) => /^(true|yes|1)$/i.test(input(name));

/** Workflow-command escaping (the runner's own rules): data, and property values. */
const escapeData = (s) => String(s).replace(/%/g, '%25').replace(/\r/g, '%0D').replace(/\n/g, '%0A');
const escapeProperty = (s) => escapeData(s).replace(/:/g, '%3A').replace(/,/g, '%2C');

/**
 * One `name<<DELIMITER` block per output, as $GITHUB_OUTPUT (and $GITHUB_ENV) take a
 * multi-line value: a value from the service (the app's URL) may hold newlines, and as
 * `name=value` its later lines would be outputs of their own (`healthy=true` after a
 * crash). The delimiter is random, and drawn again in the unlikely case it occurs in
 * the value, so no value can end its block early.
 */
function commandFileEntries(values) {
  let out = '';
  for (const [name, raw] of Object.entries(values)) {
    const value = String(raw);
    let delimiter;
    do delimiter = `ghadelimiter_${randomBytes(16).toString('hex')}`;
    while (value.includes(delimiter));
    out += `${name}<<${delimiter}\n${value}\n${delimiter}\n`;
  }
  return out;
}

/**
 * Text from outside (a path, the service's URL and reasons, a log line) in the job
 * summary's Markdown: control characters C-escaped so it stays on its line, and as text
 * every Markdown and HTML punctuation mark backslash-escaped, so a name with a backtick,
 * `#`, `|` or `<` cannot open a heading, a table or a tag. (src/cli/terminal-text.ts does
 * the same for the terminal; this script runs without the CLI's modules.)
 */
const CONTROL = /[\u0000-\u001f\u007f-\u009f\u2028\u2029\u202a-\u202e\u2066-\u2069]/g;
const C_ESCAPES = { '\x07': '\\a', '\b': '\\b', '\t': '\\t', '\n': '\\n', '\v': '\\v', '\f': '\\f', '\r': '\\r' };
const cEscaped = (s) => String(s).replace(CONTROL, (c) => C_ESCAPES[c] ?? `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`);
/** ESC-led sequences an app writes for colour or a title: dropped from a log line, as `hostsync logs` does. */
const TERMINAL_SEQUENCE = /(?:\u001b\[|\u009b)[\u0030-\u003f]*[\u0020-\u002f]*[\u0040-\u007e]|(?:\u001b\]|\u009d)[^\u0007\u001b\u009c]*(?:\u0007|\u001b\\|\u009c)?|\u001b[\u0020-\u002f]*[\u0030-\u007e]/g;
const mdText = (s) =>
  String(s)
    .replace(/[\\`*_[\]<>#|~&]/g, (c) => `\\${c}`)
    .replace(/^([-+]|\d+[.)])/, '\\$1')
    .replace(CONTROL, (c) => `\\${cEscaped(c)}`);
/** A code span whose fence is longer than any run of backticks in it (CommonMark's rule). */
function mdCode(s) {
  const text = cEscaped(s);
  const longest = Math.max(0, ...(text.match(/`+/g) ?? []).map((r) => r.length));
  const fence = '`'.repeat(longest + 1);
  const pad = text.startsWith('`') || text.endsWith('`') ? ' ' : '';
  return `${fence}${pad}${text}${pad}${fence}`;
}
/** A fenced block of log lines: the fence longer than any backtick run in them, each line one line. */
function mdLogBlock(lines) {
  const clean = lines.map((l) => cEscaped(String(l).replace(TERMINAL_SEQUENCE, '')).replace(/\\t/g, '\t'));
  const longest = Math.max(2, ...clean.flatMap((l) => (l.match(/`+/g) ?? []).map((r) => r.length)));
  const fence = '`'.repeat(longest + 1);
  return [fence, ...clean, fence];
}

/** Splits the `args` input as a shell would for plain words and quotes (no expansion). */
function words(s) {
  const out = [];
  for (const m of s.matchAll(/"([^"]*)"|'([^']*)'|(\S+)/g)) out.push(m[1] ?? m[2] ?? m[3]);
  return out;
}

function pushArgs() {
  const dir = input('directory') || '.';
  const args = ['push', '--json', '--dir', dir];
  if (input('target')) args.push('--target', input('target'));
  if (input('deployment')) args.push('--deployment', input('deployment'));
  if (yes('force')) args.push('--force');
  if (input('args')) args.push(...words(input('args')));
  return { dir, args };
}

function run(args) {
  const childEnv = { ...env, CI: env.CI || 'true' };
  if (input('api-key')) childEnv.HOSTSYNC_API_KEY = input('api-key');
  if (input('base-url')) childEnv.HOSTSYNC_BASE_URL = input('base-url');
  // The INPUT_* copies of the key stay here: the CLI reads HOSTSYNC_API_KEY only.
  for (const k of Object.keys(childEnv)) if (k.startsWith('INPUT_')) delete childEnv[k];
  return new Promise((resolve) => {
    const child = spawn(process.execPath, [CLI, ...args], { env: childEnv, stdio: ['ignore', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (d) => (stdout += d));
    // The CLI's progress and warnings go to the job log as they come, and are kept for the summary.
    child.stderr.on('data', (d) => {
      stderr += d;
      process.stderr.write(d);
    });
    child.on('error', (err) => resolve({ code: 1, stdout, stderr: `${stderr}${err.message}\n` }));
    child.on('exit', (code, signal) => resolve({ code: code ?? (signal ? 1 : 1), stdout, stderr }));
  });
}

function parse(stdout) {
  try {
    return JSON.parse(stdout);
  } catch {
    return null;
  }
}

/** The app's public URL as the apply's answer gave it; empty when nothing was applied. */
const urlOf = (r) => r?.apply?.http?.url || r?.apply?.direct?.url || '';

/** The lines worth showing when something went wrong: the app's own, else hostsync's stderr. */
function logTail(r, stderr) {
  const app = r?.health?.logs?.length ? r.health.logs : (r?.apply?.logs ?? []);
  if (app.length > 0) return { from: 'the app', lines: app.slice(-SHOWN) };
  const own = stderr.split('\n').filter((l) => l.trim() !== '');
  return { from: 'hostsync', lines: own.slice(-SHOWN) };
}

function annotations(r, code, dir, stderr) {
  const out = [];
  for (const c of (r?.conflicts ?? []).slice(0, SHOWN)) {
    // Relative to the workspace, as the runner places annotations on the repository's files.
    const file = path.relative(env.GITHUB_WORKSPACE || process.cwd(), path.resolve(dir, c.path)).split(path.sep).join('/');
    out.push(`::error file=${escapeProperty(file)},title=${escapeProperty(`hostsync: conflict on ${c.path}`)}::${escapeData(`${c.path}: ${c.reason}, left alone on the deployment (resolve it, or push with force)`)}`);
  }
  // Changed on the deployment, not by this commit: kept there, and worth a look (a hot-fix the repository lacks).
  for (const d of (r?.drift ?? []).slice(0, SHOWN)) {
    out.push(`::warning title=${escapeProperty(`hostsync: ${d.path} changed on the deployment`)}::${escapeData(`${d.path} was changed on the deployment by something other than hostsync and left as it is there (hostsync pull takes it)`)}`);
  }
  for (const e of (r?.elsewhere ?? []).slice(0, SHOWN)) {
    out.push(`::warning title=${escapeProperty(`hostsync: ${e.path} changed by a push from elsewhere`)}::${escapeData(`${e.path} was changed by a hostsync push from ${e.host}:${e.dir} (${e.time}) that this commit does not have; left as it is`)}`);
  }
  if (code === 4) {
    const reason = r?.health?.reason ?? 'the deployment is unhealthy';
    const last = logTail(r, stderr).lines.at(-1);
    out.push(`::error title=${escapeProperty('hostsync: the app is unhealthy')}::${escapeData(`${reason}${last ? `; last log line: ${last}` : ''}`)}`);
  } else if (code !== 0 && out.length === 0) {
    const error = r?.error ?? (stderr.trim().split('\n').at(-1) || `hostsync exited ${code}`);
    out.push(`::error title=${escapeProperty(`hostsync push failed (exit ${code})`)}::${escapeData(error)}`);
  }
  return out;
}

const VERDICT = { 0: 'deployed', 1: 'failed', 2: 'configuration error', 3: 'refused', 4: 'pushed, but unhealthy' };

function summary(r, code, stderr) {
  const lines = [`### hostsync push: ${VERDICT[code] ?? `exit ${code}`} (exit ${code})`, ''];
  if (r?.error) lines.push(`> ${mdText(r.error)}`, '');
  if (r) {
    const c = r.changes ?? {};
    lines.push('| written | deleted | moved | chmod | conflicts | requests | healthy |', '|---|---|---|---|---|---|---|');
    lines.push(`| ${c.written ?? 0} | ${c.deleted ?? 0} | ${c.moved ?? 0} | ${c.chmod ?? 0} | ${(r.conflicts ?? []).length} | ${r.requests?.total ?? 0} | ${r.healthy ?? 'n/a'} |`, '');
    const planned = (r.planned ?? []).map((p) => (p.kind === 'rename' ? `rename ${mdCode(p.from)} -> ${mdCode(p.to)}` : `${p.kind} ${mdCode(p.path)}`));
    if (planned.length > 0) {
      lines.push('<details><summary>Changes</summary>', '', ...planned.slice(0, 200).map((p) => `- ${p}`));
      if (planned.length > 200) lines.push(`- +${planned.length - 200} more`);
      lines.push('', '</details>', '');
    }
    if ((r.conflicts ?? []).length > 0) {
      lines.push('**Conflicts** (left alone on the deployment):', '');
      for (const x of r.conflicts.slice(0, SHOWN)) lines.push(`- ${mdCode(x.path)}: ${mdText(x.reason)}`);
      if (r.conflicts.length > SHOWN) lines.push(`- +${r.conflicts.length - SHOWN} more`);
      lines.push('');
    }
    const kept = [...(r.drift ?? []).map((d) => `- ${mdCode(d.path)}: changed on the deployment by something other than hostsync`), ...(r.elsewhere ?? []).map((e) => `- ${mdCode(e.path)}: changed by a push from ${mdCode(e.host)}:${mdCode(e.dir)} (${mdText(e.time)})`)];
    if (kept.length > 0) {
      lines.push('**Left as they are on the deployment** (this commit did not change them; `hostsync pull` takes them):', '', ...kept.slice(0, SHOWN));
      if (kept.length > SHOWN) lines.push(`- +${kept.length - SHOWN} more`);
      lines.push('');
    }
    const ops = Object.entries(r.requests?.byOperation ?? {}).map(([op, n]) => `${op} ${n}`).join(', ');
    if (ops) lines.push(`Requests: ${r.requests.total} (${ops}; rate-limited ${r.requests.rateLimited ?? 0}).`, '');
    if (r.health) {
      const h = r.health;
      lines.push(`Health: ${h.healthy ? 'healthy' : 'unhealthy'}${h.kind ? ` (${mdText(h.kind)})` : ''}: ${mdText(h.reason)}; state ${mdText(h.state ?? 'unknown')}.`, '');
    } else if (r.apply === null) {
      lines.push('Health: nothing was applied.', '');
    }
    const url = urlOf(r);
    if (url) lines.push(`URL: ${mdText(url)}`, '');
  }
  if (code !== 0) {
    const tail = logTail(r, stderr);
    if (tail.lines.length > 0) lines.push(`<details open><summary>Log tail (${tail.from})</summary>`, '', ...mdLogBlock(tail.lines), '', '</details>', '');
  }
  return `${lines.join('\n')}\n`;
}

const { dir, args } = pushArgs();
const { code, stdout, stderr } = await run(args);
const result = parse(stdout);
// A CLI that printed no JSON (it could not start) failed like any crash.
const exitCode = result === null && code === 0 ? 1 : code;

const resultFile = path.join(env.RUNNER_TEMP || tmpdir(), `hostsync-push-${process.pid}.json`);
writeFileSync(resultFile, result === null ? stdout : `${JSON.stringify(result)}\n`);
if (env.GITHUB_OUTPUT) {
  const healthy = result?.healthy === true ? 'true' : result?.healthy === false ? 'false' : '';
  appendFileSync(env.GITHUB_OUTPUT, commandFileEntries({ healthy, url: urlOf(result), 'exit-code': exitCode, result: resultFile }));
}
if (env.GITHUB_STEP_SUMMARY) appendFileSync(env.GITHUB_STEP_SUMMARY, summary(result, exitCode, stderr));
for (const line of annotations(result, exitCode, dir, stderr)) process.stdout.write(`${line}\n`);
process.exitCode = exitCode;

/**
 * What kind of deployment a project is, read from the packages it depends on, so that
 * `hostsync init` can write the right `health` settings. Pure: manifest texts in, a
 * finding out. The tables are docs/health.md's "Which kind init picks" table.
 */
import type { HealthSettings } from './health.js';

/** Chat bots and background workers: they run without serving HTTP. */
const NPM_WORKERS = [
  'discord.js', '@discordjs/core', 'eris', 'oceanic.js', '@sapphire/framework', 'telegraf', 'grammy',
  'node-telegram-bot-api', '@slack/bolt', 'tmi.js', 'whatsapp-web.js', '@whiskeysockets/baileys', 'mineflayer',
  'bullmq', 'bull', 'agenda',
];
const PIP_WORKERS = [
  'discord.py', 'py-cord', 'nextcord', 'disnake', 'hikari', 'aiogram', 'python-telegram-bot', 'pytelegrambotapi',
  'telethon', 'pyrogram', 'slack-bolt', 'celery', 'rq', 'dramatiq',
];
/** Web frameworks and servers: the app answers HTTP on SERVER_PORT. */
const NPM_WEB = [
  'express', 'fastify', 'koa', '@hapi/hapi', 'restify', 'polka', 'hono', '@hono/node-server', 'next', 'nuxt',
  '@nestjs/core', '@sveltejs/kit', '@remix-run/serve', 'astro', '@adonisjs/core', 'sails',
];
const PIP_WEB = [
  'flask', 'django', 'fastapi', 'starlette', 'quart', 'sanic', 'bottle', 'tornado', 'pyramid', 'falcon',
  'gunicorn', 'uvicorn', 'streamlit',
];

/**
 * Ready lines init writes, for libraries whose own guide prints one at login. Only
 * discord.js's is written: its guide's ready handler logs "Ready! Logged in as <tag>".
 */
const READY: Record<string, string> = { 'discord.js': 'Logged in as' };

export const KIND_TABLE = { npm: { worker: NPM_WORKERS, web: NPM_WEB }, pip: { worker: PIP_WORKERS, web: PIP_WEB } } as const;

export interface ProjectKind {
  kind: 'web' | 'worker';
  /** The package that decided it, as the manifest spells it. */
  package: string;
  manifest: 'package.json' | 'requirements.txt';
  /** What init writes as `health`. */
  health: Partial<HealthSettings>;
}

/** PEP 503: names compare case-insensitively, with runs of `-`, `_` and `.` alike. */
const pipName = (name: string): string => name.toLowerCase().replace(/[-_.]+/g, '-');

/** The package names of a package.json (every dependency field); [] when it cannot be read. */
export function npmPackages(packageJson: string): string[] {
  try {
    const pkg = JSON.parse(packageJson.replace(/^\uFEFF/, '')) as Record<string, unknown>;
    const names: string[] = [];
    for (const field of ['dependencies', 'devDependencies', 'optionalDependencies', 'peerDependencies']) {
      const deps = pkg[field];
      if (deps !== null && typeof deps === 'object' && !Array.isArray(deps)) names.push(...Object.keys(deps));
    }
    return names;
  } catch {
    return [];
  }
}

/** The requirement names of a requirements.txt: comments, options (-r, -e, --index-url) and URLs skipped. */
export function pipPackages(requirements: string): string[] {
  const names: string[] = [];
  for (const raw of requirements.split(/\r?\n/)) {
    const line = raw.replace(/(^|\s)#.*$/, '').trim();
    if (line === '' || line.startsWith('-') || /^\w+:\/\//.test(line)) continue;
    const name = /^[A-Za-z0-9][A-Za-z0-9._-]*/.exec(line)?.[0];
    if (name !== undefined) names.push(name);
  }
  return names;
}

function find(names: readonly string[], table: readonly string[], normalise: (n: string) => string): string | null {
  const wanted = new Set(table.map(normalise));
  return names.find((n) => wanted.has(normalise(n))) ?? null;
}

function finding(kind: 'web' | 'worker', pkg: string, manifest: ProjectKind['manifest']): ProjectKind {
  const ready = READY[pkg];
  const health: Partial<HealthSettings> = kind === 'web' ? { kind, path: '/' } : { kind, ...(ready ? { ready } : {}) };
  return { kind, package: pkg, manifest, health };
}

/**
 * The kind of the project, or null when no known package says. A bot package wins over
 * a web one: a bot that also runs a small keep-alive server is still judged by its bot.
 */
export function detectProjectKind(manifests: { packageJson: string | null; requirements: string | null }): ProjectKind | null {
  const npm = manifests.packageJson === null ? [] : npmPackages(manifests.packageJson);
  const pip = manifests.requirements === null ? [] : pipPackages(manifests.requirements);
  const same = (n: string): string => n;
  const npmWorker = find(npm, NPM_WORKERS, same);
  if (npmWorker) return finding('worker', npmWorker, 'package.json');
  const pipWorker = find(pip, PIP_WORKERS, pipName);
  if (pipWorker) return finding('worker', pipWorker, 'requirements.txt');
  const npmWeb = find(npm, NPM_WEB, same);
  if (npmWeb) return finding('web', npmWeb, 'package.json');
  const pipWeb = find(pip, PIP_WEB, pipName);
  if (pipWeb) return finding('web', pipWeb, 'requirements.txt');
  return null;
}

/**
 * Which environment variables hold a bot's token (issue 47, item 3). Two running copies of
 * one token fight (duplicate replies on Discord; Telegram's 409 "terminated by other
 * getUpdates request"), so hostsync compares these across the project's env files.
 * hostsync.json "tokens" names more (e.g. ["MY_SECRET"]); the built-in rule covers TOKEN,
 * BOT_TOKEN, DISCORD_TOKEN, TELEGRAM_BOT_TOKEN and every other *_TOKEN.
 */
import { usageError } from '../errors.js';

const TOKEN_NAME = /(^|_)TOKEN$/i;
const VARIABLE = /^[A-Za-z_][A-Za-z0-9_]*$/;

export const isTokenName = (name: string, extra: readonly string[]): boolean => TOKEN_NAME.test(name) || extra.includes(name);

/** hostsync.json "tokens": variable names, checked as the service would take them. */
export function validateTokens(value: unknown, file: string): string[] {
  if (!Array.isArray(value) || value.some((k) => typeof k !== 'string' || !VARIABLE.test(k))) {
    throw usageError(`${file}: "tokens" must be an array of variable names (letters, digits and _), e.g. ["MY_SECRET"]`);
  }
  return [...new Set(value as string[])];
}

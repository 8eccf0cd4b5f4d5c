import type { Command } from 'commander';
import { runEmulatorCommand } from '../../emulator/main.js';
import { globalFlags } from '../context.js';
import { describeError } from '../errors.js';
import { emulatorNotStarted } from '../not-run.js';
import type { EmulatorOptions } from '../../emulator/index.js';
import { usageError } from '../../errors.js';
import { parseFaultSpec, parseKeySpec } from '../../emulator/index.js';

export interface EmulatorFlags {
  port?: number;
  data?: string;
  rateLimit?: number;
  rateWindow?: number;
  latency?: number;
  faults?: string;
  key?: string[];
  runtime?: string;
  entry?: string;
  deployments?: number;
  dnsVerified?: boolean;
  backups?: boolean;
  backupInterval?: number;
  bootGrace?: number;
  install?: boolean;
  ramMb?: number;
  consoleLines?: number;
}


/**
 * `hostsync emulator`: validates flags into one-line usage errors, then runs until
 * SIGINT/SIGTERM. Its result is its ready line, printed by the emulator once it listens;
 * one that could not start reports the same keys, null, plus `error` and `exitCode`.
 */
export async function emulatorCommand(flags: EmulatorFlags, cmd?: Command): Promise<number> {
  try {
    return await runEmulator(flags);
  } catch (err) {
    const { message, exitCode } = describeError(err);
    if (cmd && globalFlags(cmd).json) process.stdout.write(`${JSON.stringify({ ...emulatorNotStarted, error: message, exitCode })}\n`);
    else process.stderr.write(`hostsync: ${message}\n`);
    return exitCode;
  }
}

async function runEmulator(flags: EmulatorFlags): Promise<number> {
  try {
    if (flags.faults) parseFaultSpec(flags.faults);
    for (const k of flags.key ?? []) parseKeySpec(k);
  } catch (err) {
    throw usageError((err as Error).message);
  }
  const opts: EmulatorOptions = {
    ...(flags.port !== undefined ? { port: flags.port } : {}),
    ...(flags.data ? { dataDir: flags.data } : {}),
    ...(flags.rateLimit !== undefined ? { rateLimit: flags.rateLimit } : {}),
    ...(flags.rateWindow !== undefined ? { rateWindowSeconds: flags.rateWindow } : {}),
    ...(flags.latency !== undefined ? { latencyMs: flags.latency } : {}),
    ...(flags.faults ? { faults: flags.faults } : {}),
    ...(flags.key ? { keys: flags.key } : {}),
    ...(flags.runtime ? { runtime: flags.runtime } : {}),
    ...(flags.entry ? { entryFile: flags.entry } : {}),
    ...(flags.deployments ? { deployments: flags.deployments } : {}),
    ...(flags.dnsVerified ? { dnsVerified: true } : {}),
    ...(flags.backups === false ? { autoBackups: false } : {}),
    ...(flags.backupInterval !== undefined ? { backupIntervalSeconds: flags.backupInterval } : {}),
    ...(flags.bootGrace !== undefined ? { bootGraceSeconds: flags.bootGrace } : {}),
    ...(flags.install === false ? { install: false } : {}),
    ...(flags.ramMb !== undefined ? { ramMB: flags.ramMb } : {}),
    ...(flags.consoleLines !== undefined ? { consoleLines: flags.consoleLines } : {}),
  };
  await runEmulatorCommand(opts);
  return 0;
}

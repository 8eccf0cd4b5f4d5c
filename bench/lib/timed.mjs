// Runs a command as its own process under /usr/bin/time: wall, user+sys CPU and peak RSS
// of the whole process, as a user waits for it. Asynchronous, so an emulator in the
// calling process keeps answering meanwhile.
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';

export function requireTime() {
  if (!fs.existsSync('/usr/bin/time')) {
    console.error('needs /usr/bin/time (Debian package `time`)');
    process.exit(2);
  }
}

/** `timeFile`: where /usr/bin/time writes its figures. Resolves with {code, out, err, wall, cpu, rssMb}. */
export function timed(cmd, argv, { env, cwd, timeFile }) {
  return new Promise((resolve, reject) => {
    const child = spawn('/usr/bin/time', ['-o', timeFile, '-f', '%e %U %S %M', cmd, ...argv], {
      cwd,
      env: { PATH: process.env.PATH, HOME: os.homedir(), ...env },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let out = '';
    let err = '';
    child.stdout.on('data', (d) => (out += d));
    child.stderr.on('data', (d) => (err += d));
    child.on('error', reject);
    child.on('close', (code) => {
      const [wall, user, sys, rssKb] = fs.readFileSync(timeFile, 'utf8').trim().split('\n').pop().split(' ').map(Number);
      resolve({ code, out, err, wall, cpu: user + sys, rssMb: rssKb / 1024 });
    });
  });
}

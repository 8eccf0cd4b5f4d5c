// A stand-in CLI for the CLI host's own test (test/cli/cli-host.test.ts): each command does
// one thing a real command might, that the host must answer as a real process would.
import { openAsBlob, openSync, write } from 'node:fs';

export async function main(argv) {
  const [command, arg] = argv.slice(2);
  switch (command) {
    case 'env':
      // What the command sees: exactly the call's environment and directory.
      process.stdout.write(`${JSON.stringify({ env: process.env, cwd: process.cwd(), argv: process.argv.slice(2) })}\n`);
      return 0;
    case 'fd2':
      // As pino's destination(2): straight to the file descriptor, asynchronously, after main returns.
      write(2, 'on fd 2\n', () => undefined);
      process.stderr.write('on the stream\n');
      return Number(arg ?? 0);
    case 'later':
      // A ref'd timer keeps a real process alive until it has written.
      setTimeout(() => process.stdout.write('later\n'), 50);
      return 0;
    case 'exit':
      // process.exit() from inside a command, its main never returning.
      setTimeout(() => process.exit(Number(arg)), 10);
      return new Promise(() => undefined);
    case 'throw':
      setTimeout(() => {
        throw new Error('thrown in a timer');
      }, 10);
      return 0;
    case 'listen':
      // A signal listener a command adds and never removes.
      process.on('SIGINT', () => undefined);
      return 0;
    case 'blob': {
      // As an upload sends a file: a file-backed Blob, read to its end (Node keeps the finished read request for reuse).
      let bytes = 0;
      for await (const chunk of (await openAsBlob(arg)).stream()) bytes += chunk.length;
      process.stdout.write(`${bytes}\n`);
      return 0;
    }
    case 'keep-open':
      // A file opened and never closed: a real process closes it by exiting.
      openSync(arg, 'r');
      return 0;
    case 'pid':
      process.stdout.write(`${process.pid}\n`);
      return 0;
    default:
      return 2;
  }
}

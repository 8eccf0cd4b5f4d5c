// The baseline the push benchmark compares hostsync with: a tool that sends one file per
// request, with no batching, no remote index and no diff. It goes through hostsync's own
// HostingClient, so it gets the same rate-limit pacing, retries and in-flight bound: the
// difference measured is the request pattern, not the HTTP plumbing.
//   text (valid UTF-8, no NUL, under 4 MB) -> files.write          (1 API request)
//   anything else                          -> files.uploadUrl + POST (1 API request + 1 node upload)
import fs from 'node:fs';
import { isUtf8 } from 'node:buffer';
import path from 'node:path';

const TEXT_MAX_BYTES = 4 * 1024 * 1024;

/** Relative POSIX paths of every regular file under root, skipping `skip` directory names. */
export function listFiles(root, skip = new Set(['.hostsync'])) {
  const out = [];
  const walk = (rel) => {
    for (const d of fs.readdirSync(path.join(root, rel), { withFileTypes: true })) {
      const child = rel === '' ? d.name : `${rel}/${d.name}`;
      if (d.isDirectory()) {
        if (!skip.has(d.name)) walk(child);
      } else if (d.isFile()) out.push(child);
    }
  };
  walk('');
  return out.sort();
}

/**
 * Sends every path in `rel` with `client`, `concurrency` at a time (the client's queue
 * bounds in-flight requests and paces them; the workers only keep file contents from
 * piling up in memory). Returns the content bytes sent.
 */
export async function naivePush(client, root, rel, concurrency) {
  let next = 0;
  let bytes = 0;
  const worker = async () => {
    while (next < rel.length) {
      const p = rel[next++];
      const abs = path.join(root, ...p.split('/'));
      const buf = await fs.promises.readFile(abs);
      bytes += buf.length;
      if (buf.length < TEXT_MAX_BYTES && isUtf8(buf) && !buf.includes(0)) {
        await client.files.write(p, buf.toString('utf8'));
      } else {
        const dir = path.posix.dirname(p);
        await client.files.upload(dir === '.' ? '' : dir, [{ name: path.posix.basename(p), localPath: abs, size: buf.length }]);
      }
    }
  };
  await Promise.all(Array.from({ length: Math.max(1, concurrency) }, worker));
  return bytes;
}

/** The "naive with mtime" variant's change detection: files modified at or after `sinceMs`. */
export function modifiedSince(root, sinceMs) {
  return listFiles(root).filter((p) => fs.statSync(path.join(root, ...p.split('/'))).mtimeMs >= sinceMs);
}

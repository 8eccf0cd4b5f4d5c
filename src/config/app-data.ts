/**
 * What `hostsync init` proposes as hostsync.json "remoteOwned": the app's data, found by a
 * cheap look at the project's own source. A file that both makes a write call and names a
 * data file says where the running app keeps its state:
 * - write calls: writeFile / appendFile / createWriteStream (Node), `open(..., 'w')` or
 *   'a' (Python), `sqlite3.connect` / `aiosqlite.connect`, `new Database(...)`
 *   (better-sqlite3, sqlite3), `json.dump`;
 * - data files: a string naming a `.sqlite`, `.sqlite3` or `.db` file proposes `*.sqlite`
 *   (`*.sqlite3`, `*.db`); one starting with `data/`, or a `"data"` joined into a path
 *   (`path.join(__dirname, 'data')`, `os.path.join(..., "data")`, `BASE / "data"`),
 *   proposes `data/`.
 * Only a proposal: init prints what it wrote and why, and the user edits it. A file that
 * reads data but never writes proposes nothing (seed data travels with the code). Pure.
 */

export interface SourceFile {
  /** Root-relative POSIX path, for init's report. */
  path: string;
  text: string;
}

export interface AppDataFinding {
  /** The patterns to propose, in a stable order. */
  patterns: string[];
  /** Why each was proposed ("bot.js: new Database('bot.sqlite')"), for init's report. */
  notes: string[];
}

const WRITE_CALL = /\b(?:writeFile(?:Sync)?|appendFile(?:Sync)?|createWriteStream|(?:aio)?sqlite3?\.connect|json\.dump)\s*\(|\bnew\s+(?:[\w$]+\.)*Database\s*\(|\bopen\s*\([^)\n]*,\s*(?:mode\s*=\s*)?['"][wax]b?\+?['"]/;

/** A quoted name ending in .sqlite, .sqlite3 or .db: the extension. */
const DB_FILE = /['"`][^'"`\n]*\.(sqlite3?|db)['"`]/g;

/** A quoted path starting with data/, or "data" joined into a path. */
const DATA_PATH = /['"`](?:\.\/)?data\/[^'"`\n]*['"`]|\b(?:join|resolve)\s*\([^)\n]*['"`](?:\.\/)?data['"`]|\/\s*['"]data['"]/;

export function appDataPatterns(sources: readonly SourceFile[]): AppDataFinding {
  const found = new Map<string, string>();
  for (const { path, text } of sources) {
    const write = WRITE_CALL.exec(text);
    if (write === null) continue;
    const call = write[0].replace(/\s*\($/, '').replace(/\s+/g, ' ');
    for (const m of text.matchAll(DB_FILE)) {
      const pattern = `*.${m[1]!}`;
      if (!found.has(pattern)) found.set(pattern, `${path} names ${m[0]} and writes (${call})`);
    }
    const data = DATA_PATH.exec(text);
    if (data !== null && !found.has('data/')) found.set('data/', `${path} names a data/ path and writes (${call})`);
  }
  const order = ['data/', '*.sqlite', '*.sqlite3', '*.db'];
  const patterns = [...found.keys()].sort((a, b) => order.indexOf(a) - order.indexOf(b));
  return { patterns, notes: patterns.map((p) => found.get(p)!) };
}

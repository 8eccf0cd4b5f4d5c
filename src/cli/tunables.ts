/**
 * The command line's tunables, each with its reason. (The library's live with their layers.)
 */

/**
 * V8's budget before a WebAssembly function is recompiled by its optimising compiler
 * (V8's default is 1,800,000, "a rough approximation of bytes executed"). undici parses
 * HTTP with llhttp compiled to wasm, and its main function (33 KB of wasm) crossed the
 * default budget in every command that made a request, even two small ones: 0.15-0.27 s
 * of a compiler thread and 30-40 MB of its memory, which the process then waited for at
 * exit (a 3k-file `status` is about 0.6 s of CPU in all). At this budget a command that
 * exchanges little never pays for it, while xxhash's small functions, which a scan runs
 * over every byte it hashes, still tier up early in a cold scan (checked with
 * `--trace-wasm-compilation-times`), and a long push or watch still optimises llhttp.
 */
export const WASM_TIERING_BUDGET = 100_000_000;

/**
 * How long `status` waits for a running watch to work out its whole answer before it works
 * it out itself. The watch answers in tens of milliseconds (its two or three requests
 * included); one that has said nothing for this long is stopped or stuck, or the service
 * is slow, and then the command's own try costs no more than the wait it saves.
 */
export const WATCH_STATUS_WAIT_MS = 15_000;

/**
 * How often `hostsync dev` looks at hostsync.json for an edit: one stat (the file may not
 * exist yet, so no fs.watch); an edit is applied within about a second, about as soon as a save.
 */
export const DEV_CONFIG_POLL_MS = 1_000;

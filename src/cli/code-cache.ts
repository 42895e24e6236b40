/**
 * Runs a CommonJS file through V8's code cache, so that a short-lived process (a CLI call, a hook) does not
 * compile the same large file from scratch every time. Two files use it: the bundled command (`dist/bin/gitctx.cjs`,
 * loaded by `src/cli/bin.ts`) and the shell parser (`mvdan-sh`, 1.5 MB of transpiled Go, by `parser-cache.ts`).
 *
 * The cache is the user's own file, in `$XDG_CACHE_HOME/gitctx` (else `~/.cache/gitctx`), named after what it was
 * made from: the file's identity (a package version, or the bundle's content hash) and Node's version and
 * architecture. A cache is code that will run: it is used only when it and its directory belong to the user and
 * no one else can write them. V8 itself rejects a cache made for other flags or a source of another length, but
 * not one made for other source of the same length: that is why the name carries the identity. When there is no
 * usable cache, the file is compiled as usual and the cache is written as the process exits (it then holds every
 * function this run compiled, not only the top level), replacing the caches of earlier identities. Any error on
 * the way means no cache, never a failed start.
 */
import { mkdirSync, readdirSync, readFileSync, renameSync, rmSync, statSync, writeFileSync } from "node:fs";
import { createRequire } from "node:module";
import { homedir } from "node:os";
import { dirname, join } from "node:path";
import vm from "node:vm";

export interface CodeCacheName {
  /** What the file is, for every identity of it: `mvdan-sh`, `gitctx-cli`. */
  stem: string;
  /** Which content of it (a version, a hash). A cache of another identity is removed when this one is written. */
  identity: string;
}

/** Runs `file` as a CommonJS module and returns its exports. `encoding` is how its bytes are decoded. */
export function requireWithCodeCache(file: string, name: CodeCacheName, encoding: "utf8" | "latin1" = "utf8"): unknown {
  const dir = cacheDirectory();
  const prefix = `${name.stem}-node-${process.version}-${process.arch}.`;
  const cacheFile = join(dir, `${prefix}${name.identity}.v8cache`);
  let cached: Buffer | undefined;
  try {
    if (ownedAndPrivate(dir) && ownedAndPrivate(cacheFile)) cached = readFileSync(cacheFile);
  } catch {
    cached = undefined;
  }
  const source = readFileSync(file, encoding);
  const wrapper = `(function (exports, require, module, __filename, __dirname) {${source}\n})`;
  const script = new vm.Script(wrapper, { filename: file, ...(cached === undefined ? {} : { cachedData: cached }) });
  if (cached === undefined || script.cachedDataRejected === true) {
    process.once("exit", () => writeCache(script, dir, prefix, cacheFile));
  }
  const module = { exports: {} as unknown };
  (script.runInThisContext() as (...args: unknown[]) => void)(module.exports, createRequire(file), module, file, dirname(file));
  return module.exports;
}

function cacheDirectory(): string {
  const base = process.env.XDG_CACHE_HOME?.startsWith("/") ? process.env.XDG_CACHE_HOME : join(homedir(), ".cache");
  return join(base, "gitctx");
}

/** Owned by the user and writable by no one else (group and others cannot write it). */
function ownedAndPrivate(path: string): boolean {
  const info = statSync(path);
  const uid = process.getuid?.();
  return (uid === undefined || info.uid === uid) && (info.mode & 0o022) === 0;
}

function writeCache(script: vm.Script, dir: string, prefix: string, cacheFile: string): void {
  try {
    mkdirSync(dir, { recursive: true, mode: 0o700 });
    if (!ownedAndPrivate(dir)) return;
    const temporary = `${cacheFile}.${process.pid}.tmp`;
    writeFileSync(temporary, script.createCachedData(), { mode: 0o600 });
    renameSync(temporary, cacheFile);
    for (const entry of readdirSync(dir)) {
      if (entry.startsWith(prefix) && entry.endsWith(".v8cache") && join(dir, entry) !== cacheFile) rmSync(join(dir, entry), { force: true });
    }
  } catch {
    // No cache this time; the file ran all the same.
  }
}

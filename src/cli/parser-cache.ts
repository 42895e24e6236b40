/**
 * Loads the shell parser (`mvdan-sh`, 1.5 MB of transpiled Go) through V8's code cache, so that a hook process,
 * which parses one line and exits, does not compile it from scratch every time: about 50 ms become about 20.
 *
 * The cache is the user's own file, in `$XDG_CACHE_HOME/gitctx` (else `~/.cache/gitctx`), named after the
 * package's version and Node's, in a directory only the user can write (a cache is code that will run: it is
 * used only when it and its directory belong to the user and no one else can write them). V8 itself rejects a
 * cache made for other source or flags; then, or on any error, the parser is compiled as usual and the cache
 * rewritten.
 */
import { createRequire } from "node:module";
import { mkdirSync, readFileSync, renameSync, statSync, writeFileSync } from "node:fs";
import { homedir } from "node:os";
import { dirname, join } from "node:path";
import vm from "node:vm";
import { parserModulePath, setParserModuleLoader } from "../safety/shell.js";

export function useParserCodeCache(): void {
  setParserModuleLoader((defaultLoad) => {
    try {
      return loadWithCache();
    } catch {
      return defaultLoad();
    }
  });
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

function loadWithCache(): unknown {
  const file = parserModulePath();
  const version = (JSON.parse(readFileSync(join(dirname(file), "package.json"), "utf8")) as { version?: string }).version ?? "unknown";
  const dir = cacheDirectory();
  const cacheFile = join(dir, `mvdan-sh-${version}-node-${process.version}-${process.arch}.v8cache`);
  let cached: Buffer | undefined;
  try {
    if (ownedAndPrivate(dir) && ownedAndPrivate(cacheFile)) cached = readFileSync(cacheFile);
  } catch {
    cached = undefined;
  }
  const source = readFileSync(file, "utf8");
  const wrapper = `(function (exports, require, module, __filename, __dirname) {${source}\n})`;
  const script = new vm.Script(wrapper, { filename: file, ...(cached === undefined ? {} : { cachedData: cached }) });
  const module = { exports: {} as unknown };
  (script.runInThisContext() as (...args: unknown[]) => void)(module.exports, createRequire(file), module, file, dirname(file));
  if (cached === undefined || script.cachedDataRejected === true) {
    try {
      mkdirSync(dir, { recursive: true, mode: 0o700 });
      if (ownedAndPrivate(dir)) {
        const temporary = `${cacheFile}.${process.pid}.tmp`;
        writeFileSync(temporary, script.createCachedData(), { mode: 0o600 });
        renameSync(temporary, cacheFile);
      }
    } catch {
      // No cache this time; the parser loaded all the same.
    }
  }
  return module.exports;
}

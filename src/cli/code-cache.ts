/**
 * Runs a CommonJS file through V8's code cache, so that a short-lived process (a CLI call, a hook) does not
 * compile the same large file from scratch every time. Two files use it: the bundled command (`dist/bin/gitctx.cjs`,
 * loaded by `src/cli/bin.ts`) and the shell parser (`mvdan-sh`, 1.5 MB of transpiled Go, by `parser-cache.ts`).
 *
 * The cache is the user's own file, in `$XDG_CACHE_HOME/gitctx` (else `~/.cache/gitctx`; no cache when neither
 * is an absolute path), named after what it was made from: the file's identity (a package version, or the
 * bundle's content hash), the stamp of the file read (inode, size, modification time: an edit in place changes
 * it), and Node's version and architecture. A cache is code that will run: it is used only when it and its
 * directory belong to the user and no one else can write them, the file opened without following a link.
 * V8 itself rejects a cache made for other flags or a source of another length, but not one made for other source
 * of the same length: that is why the name carries the identity and the stamp. When there is no
 * usable cache, the file is compiled as usual and the cache is written as the process exits (it then holds every
 * function this run compiled, not only the top level), replacing the caches of earlier identities. Any error on
 * the way means no cache, never a failed start.
 */
import {
  closeSync,
  constants,
  fstatSync,
  lstatSync,
  mkdirSync,
  openSync,
  readdirSync,
  readFileSync,
  renameSync,
  rmSync,
  writeFileSync,
  type Stats,
} from "node:fs";
import { createRequire } from "node:module";
import { homedir } from "node:os";
import { dirname, isAbsolute, join } from "node:path";
import vm from "node:vm";

export interface CodeCacheName {
  /** What the file is, for every identity of it: `mvdan-sh`, `gitctx-cli`. */
  stem: string;
  /** Which content of it (a version, a hash). A cache of another identity is removed when this one is written. */
  identity: string;
}

/** Runs `file` as a CommonJS module and returns its exports. `encoding` is how its bytes are decoded. */
export function requireWithCodeCache(file: string, name: CodeCacheName, encoding: "utf8" | "latin1" = "utf8"): unknown {
  const { source, stamp } = readSource(file, encoding);
  const dir = cacheDirectory();
  const prefix = `${name.stem}-node-${process.version}-${process.arch}.`;
  // The file's own stamp too: an edit in place (a patch of the installed package) keeps the name it was built with.
  const cacheFile = dir === undefined ? undefined : join(dir, `${prefix}${name.identity}.${stamp}.v8cache`);
  const cached = cacheFile === undefined ? undefined : readCache(cacheFile);
  const wrapper = `(function (exports, require, module, __filename, __dirname) {${source}\n})`;
  const script = new vm.Script(wrapper, { filename: file, ...(cached === undefined ? {} : { cachedData: cached }) });
  if (cacheFile !== undefined && (cached === undefined || script.cachedDataRejected === true)) {
    process.once("exit", () => writeCache(script, prefix, cacheFile));
  }
  const module = { exports: {} as unknown };
  (script.runInThisContext() as (...args: unknown[]) => void)(module.exports, createRequire(file), module, file, dirname(file));
  return module.exports;
}

/** The file's text, and a stamp of the file read (inode, size, modification time) from the same descriptor. */
function readSource(file: string, encoding: "utf8" | "latin1"): { source: string; stamp: string } {
  const fd = openSync(file, "r");
  try {
    const info = fstatSync(fd, { bigint: true });
    return { source: readFileSync(fd, encoding), stamp: `${info.ino}-${info.size}-${info.mtimeNs}` };
  } finally {
    closeSync(fd);
  }
}

/** `$XDG_CACHE_HOME/gitctx`, else `~/.cache/gitctx`; none when neither is absolute (a relative HOME is wherever the process runs). */
function cacheDirectory(): string | undefined {
  const xdg = process.env.XDG_CACHE_HOME;
  const base = xdg !== undefined && isAbsolute(xdg) ? xdg : join(homedir(), ".cache");
  return isAbsolute(base) ? join(base, "gitctx") : undefined;
}

/**
 * The cache, when its directory is a directory (not a link) and it a regular file, both the user's and writable
 * by no one else. The file is opened without following a link and checked on the open descriptor, so what is
 * checked is what is read.
 */
function readCache(cacheFile: string): Buffer | undefined {
  try {
    if (!privateDirectory(dirname(cacheFile))) return undefined;
    const fd = openSync(cacheFile, constants.O_RDONLY | constants.O_NOFOLLOW);
    try {
      const file = fstatSync(fd);
      return file.isFile() && ownedAndPrivate(file) ? readFileSync(fd) : undefined;
    } finally {
      closeSync(fd);
    }
  } catch {
    return undefined;
  }
}

/** A directory itself (not a link to one), the user's, that no one else can write. */
function privateDirectory(dir: string): boolean {
  const info = lstatSync(dir);
  return info.isDirectory() && ownedAndPrivate(info);
}

/** Owned by the user and writable by no one else (group and others cannot write it). */
function ownedAndPrivate(info: Stats): boolean {
  const uid = process.getuid?.();
  return (uid === undefined || info.uid === uid) && (info.mode & 0o022) === 0;
}

function writeCache(script: vm.Script, prefix: string, cacheFile: string): void {
  const dir = dirname(cacheFile);
  try {
    mkdirSync(dir, { recursive: true, mode: 0o700 });
    if (!privateDirectory(dir)) return;
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

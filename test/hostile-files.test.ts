/**
 * Files a hostile repository controls, round three: an index (or packed-refs, or a work tree file) of gigabytes
 * that would abort Node if read whole, alternates written the ways git reads and a naive check does not, and the
 * special files repository config and legacy remote files name. Each attack is first shown to work on plain git
 * (or, for a crash of the host, on the unbounded read gitctx used to make, in a child process), then gitctx is shown
 * to answer every tool with a typed error at once, or with what plain git answers without the hostile file.
 */
import { execFileSync, spawnSync } from "node:child_process";
import { mkdirSync, readFileSync, realpathSync, rmSync, statSync, symlinkSync, truncateSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { classifyCommandInRepository, createToolbox, createWatcher, type ToolResult } from "../src/index.js";
import { MAX_INDEX_BYTES } from "../src/git/file-limits.js";
import { parseAlternates } from "../src/git/parse/alternates.js";
import { parseIndex } from "../src/git/parse/index-file.js";
import { forEachLine, readRegularFile, readWholeRegularFile } from "../src/git/read-file.js";
import { alternateStores } from "../src/git/state-files.js";
import { type Call, READ_CALLS, twoFileRepo } from "./fixtures/hostile.js";
import { fixtureEnv, makeRepo, plainGit, plainGitWithin, tempDir, type TestRepo } from "./fixtures/repo.js";

const TOOLS: readonly Call[] = [...READ_CALLS, ["enter_worktree", { name: "probe" }]];

/** A watcher on the repository starts and watches (it reads the state files itself), then closes. */
async function expectWatcherStarts(repo: TestRepo): Promise<void> {
  const watcher = createWatcher({
    location: { root: realpathSync(repo.dir), topLevel: realpathSync(repo.dir), gitDir: realpathSync(join(repo.dir, ".git")) },
  });
  try {
    await watcher.ready;
    expect(watcher.status().state).toBe("watching");
  } finally {
    await watcher.close();
  }
}

/** Every tool, one after the other (enter_worktree writes), in a toolbox that may write. */
async function every(root: string): Promise<ToolResult[]> {
  const toolbox = createToolbox({ root, mode: "workspace-write" });
  try {
    const results: ToolResult[] = [];
    for (const [tool, input] of TOOLS) results.push(await toolbox.execute(tool, input));
    return results;
  } finally {
    await toolbox.close();
  }
}

function codes(results: ToolResult[]): string[] {
  return [...new Set(results.map((result) => (result.ok ? "ok" : result.error.code)))];
}

function message(result: ToolResult | undefined): string {
  return result === undefined || result.ok ? "" : result.error.message;
}

/** The hook's verdict on a plain read, and why. */
async function hook(root: string): Promise<{ verdict: string; reasons: string }> {
  const classified = await classifyCommandInRepository("git status", { root });
  return { verdict: classified.verdict, reasons: JSON.stringify(classified) };
}

const GIB = 1024 * 1024 * 1024;

/** The read gitctx made before: the file's size asked of one read call. Run in a child, it aborts Node. */
const UNBOUNDED_READ = `
const { open } = require("node:fs/promises");
(async () => {
  const handle = await open(process.argv[1], "r");
  const { size } = await handle.stat();
  const buffer = Buffer.allocUnsafe(size);
  await handle.read(buffer, 0, size, null);
  console.log("read", size);
})().catch((error) => { console.log("rejected", error.code); });
`;

describe("files of gigabytes that would crash the host", () => {
  it("a sparse 3 GiB .git/index: read whole it aborts Node; every tool, the watcher and the hook answer at once", async () => {
    const repo = twoFileRepo();
    const index = join(repo.dir, ".git", "index");
    rmSync(index);
    truncateSync(writeEmpty(index), 3 * GIB);
    // Plain git refuses it as an index; read whole in one call, as gitctx did, it aborts the process.
    expect(plainGit(repo.dir, ["status"]).stderr).toMatch(/index file|bad signature/);
    const child = spawnSync(process.execPath, ["-e", UNBOUNDED_READ, index], { encoding: "utf8" });
    expect(child.signal).toBe("SIGABRT");
    expect(child.stderr).toContain("IsInt32");

    const results = await every(repo.dir);
    expect(codes(results)).toEqual(["unsafe_repository"]);
    expect(message(results[0])).toContain(`${join(realpathSync(repo.dir), ".git", "index")} is 3072 MiB, far larger than git ever makes it`);
    expect((await hook(repo.dir)).verdict).toBe("ask");
    expect((await hook(repo.dir)).reasons).toContain("3072 MiB");

    // The watcher reads the index itself: it starts, and sees the index as one it cannot read, without crashing.
    await expectWatcherStarts(repo);
  });

  it("a sparse index under the bound, its header an index's: plain git fails at once, every tool refuses at once", async () => {
    const repo = twoFileRepo();
    const index = join(repo.dir, ".git", "index");
    // The real header (DIRC, version, entry count), then a gigabyte of holes: an archive ships it for nothing.
    const header = readFileSync(index).subarray(0, 12);
    rmSync(index);
    writeFileSync(index, header);
    truncateSync(index, 1000 * 1024 * 1024);
    expect(statSync(index).blocks * 512).toBeLessThan(1024 * 1024);
    // git stops at the first extension: the one it names is four zero bytes (an empty name), the first place past the
    // header's entries where one can start. It reads none of the holes after them.
    expect(plainGit(repo.dir, ["status"]).stderr).toContain("index uses  extension, which we do not understand");
    // gitctx read it whole (twice over, while joining its chunks) and walked its zeros as extensions: 30 s and
    // 2 GB of its own memory for each call.
    const results = await every(repo.dir);
    expect(codes(results)).toEqual(["unsafe_repository"]);
    expect(message(results[0])).toContain(".git/index is a sparse file of 1000 MiB");
    expect((await hook(repo.dir)).verdict).toBe("ask");
  });

  it("an index's extensions are read as git reads them: one it does not understand ends the walk", () => {
    const entries = Buffer.concat([Buffer.from("DIRC", "latin1"), Buffer.from([0, 0, 0, 2, 0, 0, 0, 0])]);
    const extension = (name: string, size: number): Buffer => {
      const head = Buffer.alloc(8);
      head.write(name, 0, "latin1");
      head.writeUInt32BE(size, 4);
      return Buffer.concat([head, Buffer.alloc(size)]);
    };
    const trailer = Buffer.alloc(20);
    // Megabytes of zeros past the entries: a nameless required extension, at once (not eight bytes at a time).
    expect(parseIndex(Buffer.concat([entries, Buffer.alloc(64 * 1024 * 1024), trailer]))).toMatchObject({ ok: false });
    expect(parseIndex(Buffer.concat([entries, extension("TREE", 4), extension("ABCD", 0), trailer]))).toMatchObject({ ok: true, split: false });
    expect(parseIndex(Buffer.concat([entries, extension("sdir", 0), trailer]))).toMatchObject({ ok: true, split: false });
    expect(parseIndex(Buffer.concat([entries, extension("link", 20), trailer]))).toMatchObject({ ok: true, split: true });
    expect(parseIndex(Buffer.concat([entries, extension("evil", 0), trailer]))).toMatchObject({ ok: false });
  });

  it("the readers refuse a bound Node cannot read, and report a file past theirs instead of reading it", async () => {
    const big = join(tempDir(), "big");
    truncateSync(writeEmpty(big), 3 * GIB);
    await expect(readRegularFile(big, 3 * GIB)).rejects.toThrow(RangeError);
    expect(await readWholeRegularFile(big, MAX_INDEX_BYTES)).toEqual({ kind: "too_large", size: 3 * GIB });
    // A prefix is a prefix, read in chunks far below the 2^31-1 bytes of one call.
    expect((await readRegularFile(big, 16 * 1024 * 1024))?.length).toBe(16 * 1024 * 1024);
    expect(await forEachLine(big, 1024 * 1024, 64 * 1024, () => {})).toBe("too_large");
  });

  it("a sparse 3 GiB packed-refs (git maps it): the watcher starts, the tools refuse at once, never a crash", async () => {
    const repo = twoFileRepo();
    const packed = join(repo.dir, ".git", "packed-refs");
    truncateSync(writeEmpty(packed), 3 * GIB);
    const child = spawnSync(process.execPath, ["-e", UNBOUNDED_READ, packed], { encoding: "utf8" });
    expect(child.signal).toBe("SIGABRT");
    await expectWatcherStarts(repo);
    // git reads it through (for seconds) and then fails on it; gitctx refuses it for its size before git runs.
    expect(plainGit(repo.dir, ["show", "-s"]).stderr).toContain("unterminated line in .git/packed-refs");
    const results = await every(repo.dir);
    expect(codes(results)).toEqual(["unsafe_repository"]);
    expect(message(results[0])).toContain("packed-refs is 3072 MiB");
  }, 180_000);

  it("a staged file swapped for a sparse 3 GiB one before the first commit: blame says too_large, the host lives", async () => {
    const repo = makeRepo();
    repo.write("a.txt", "alpha\n");
    repo.git(["add", "a.txt"]);
    truncateSync(join(repo.dir, "a.txt"), 3 * GIB);
    const child = spawnSync(process.execPath, ["-e", UNBOUNDED_READ, join(repo.dir, "a.txt")], { encoding: "utf8" });
    expect(child.signal).toBe("SIGABRT");
    const toolbox = createToolbox({ root: repo.dir });
    const blame = await toolbox.execute("git_blame", { path: "a.txt" });
    const backwards = await toolbox.execute("git_blame", { path: "a.txt", start_line: 5, end_line: 2 });
    await toolbox.close();
    expect(blame.ok ? "ok" : blame.error.code).toBe("too_large");
    expect(message(blame)).toMatch(/a\.txt is 3072 MiB, more than the 128 MiB gitctx blames without history/);
    expect(backwards.ok ? "ok" : backwards.error.code).toBe("invalid_input");
  });

  it("blame before the first commit still reads a long file's window and its length exactly", async () => {
    const repo = makeRepo();
    repo.write("a.txt", `${Array.from({ length: 1000 }, (_, i) => `line ${i + 1}`).join("\n")}\n`);
    repo.git(["add", "a.txt"]);
    const toolbox = createToolbox({ root: repo.dir });
    const window = await toolbox.execute("git_blame", { path: "a.txt", start_line: 990, end_line: 1000 });
    const past = await toolbox.execute("git_blame", { path: "a.txt", start_line: 1001 });
    await toolbox.close();
    const lines = window.ok ? (window.data as { lines: Array<{ line: number; content: string }> }).lines : [];
    expect(lines.map((line) => line.content)).toEqual(Array.from({ length: 11 }, (_, i) => `line ${990 + i}`));
    expect(message(past)).toContain("has only 1000 lines");
  });
});

function writeEmpty(path: string): string {
  writeFileSync(path, "");
  return path;
}

/** `quote_c_style` as `git count-objects -v` prints an alternate (core.quotePath=false: bytes above 0x7f as they are). */
function cQuote(path: Buffer): string {
  const escapes: Record<number, string> = { 7: "\\a", 8: "\\b", 9: "\\t", 10: "\\n", 11: "\\v", 12: "\\f", 13: "\\r", 34: '\\"', 92: "\\\\" };
  let quoted = false;
  let out = "";
  for (const byte of path) {
    if (escapes[byte] !== undefined) out += escapes[byte];
    else if (byte < 0x20 || byte === 0x7f) out += `\\${byte.toString(8).padStart(3, "0")}`;
    else {
      out += String.fromCharCode(byte);
      continue;
    }
    quoted = true;
  }
  return quoted ? `"${out}"` : out;
}

/** The stores plain git borrows, as `git count-objects -v` lists them. */
function gitAlternates(dir: string): string[] {
  const listed = plainGit(dir, ["-c", "core.quotePath=false", "count-objects", "-v"]);
  return listed.stdout
    .split("\n")
    .filter((line) => line.startsWith("alternate: "))
    .map((line) => line.slice("alternate: ".length));
}

describe("alternates read exactly as git reads them", () => {
  /** A repository and, beside it, directories to name as stores (made as they are named). */
  function setup(): { repo: TestRepo; base: string; objects: string; store: (name: string) => string } {
    const base = realpathSync(tempDir());
    const repo = makeRepo({ dir: join(base, "repo") });
    repo.write("a.txt", "alpha\n").commit("first");
    const objects = join(base, "repo", ".git", "objects");
    const store = (name: string): string => {
      const path = join(base, name);
      mkdirSync(path, { recursive: true });
      return path;
    };
    return { repo, base, objects, store };
  }

  const cases: Array<[string, (s: ReturnType<typeof setup>) => Buffer]> = [
    ["an absolute path", (s) => Buffer.from(`${s.store("far")}\n`)],
    ["a C-quoted path with octal escapes", (s) => Buffer.from(`"${s.store("far").replaceAll("/", "\\057")}"\n`)],
    ["a comment, then a path", (s) => Buffer.from(`# ${s.store("not-me")}\n${s.store("far")}\n`)],
    ["a space before #: a path, not a comment", (s) => (mkdirSync(join(s.objects, " #x")), Buffer.from(" #x\n"))],
    ["a path relative to the object directory", (s) => (s.store("far"), Buffer.from("../../../far\n"))],
    ["a relative path through an unknown directory", (s) => (mkdirSync(join(s.objects, " #")), s.store("far"), Buffer.from(" #/../../../../far\n"))],
    ["a CRLF line: the CR is part of the path", (s) => (s.store("far\r"), s.store("far"), Buffer.from(`${join(s.base, "far")}\r\n`))],
    ["a NUL ends the file", (s) => Buffer.from(`${s.store("far")}\n\0${s.store("after-nul")}\n`)],
    ["a quoted path spanning a newline", (s) => Buffer.from(`"${s.store("a\nb").replace("\n", "\\n").slice(0, -3)}\nb"\n`)],
    ["a quoted path, then a byte skipped, then another path", (s) => Buffer.from(`"${s.store("far")}"X${s.store("second")}\n`)],
    ["a broken quote is taken as written", (s) => Buffer.from(`"${s.store("far")}\n`)],
    ["a bad escape is taken as written", (s) => Buffer.from(`"${s.store("far")}\\q"\n`)],
    [
      "duplicates, a trailing slash and the object directory itself",
      (s) => Buffer.from(`${s.store("far")}\n${join(s.base, "far")}/\n${s.objects}\n`),
    ],
    ["a symlink to a store", (s) => (symlinkSync(s.store("far"), join(s.base, "link")), Buffer.from(`${join(s.base, "link")}\n`))],
    ["an escaped NUL inside quotes", (s) => Buffer.from(`"${s.store("far")}\\000junk"\n`)],
    [
      "a missing store and a file where a store should be",
      (s) => (writeFileSync(join(s.base, "file"), "x"), Buffer.from(`${join(s.base, "missing")}\n${join(s.base, "file")}\n`)),
    ],
    [
      "nested alternates, seven deep (git stops at five)",
      (s) => {
        for (let i = 0; i < 7; i++) writeNested(s.store(`n${i}`), `${join(s.base, `n${i + 1}`)}\n`);
        s.store("n7");
        return Buffer.from(`${join(s.base, "n0")}\n`);
      },
    ],
    [
      "nested alternates, relative to each store, in a cycle",
      (s) => {
        writeNested(s.store("c1"), "../c2\n");
        writeNested(s.store("c2"), "../c1\n../c3\n");
        s.store("c3");
        return Buffer.from(`${join(s.base, "c1")}\n`);
      },
    ],
  ];

  for (const [name, make] of cases) {
    it(`${name}: the stores gitctx sees are the ones git borrows`, () => {
      const s = setup();
      writeFileSync(join(s.objects, "info", "alternates"), make(s));
      const ours = alternateStores(join(s.base, "repo", ".git")).map(({ store }) => cQuote(store));
      expect(ours).toEqual(gitAlternates(s.repo.dir));
    });
  }

  it("parses the quirks of parse_alt_odb_entry", () => {
    const parse = (text: string): string[] => parseAlternates(Buffer.from(text, "latin1")).map((entry) => entry.toString("latin1"));
    expect(parse('#c\n #p\n"\\057x"y/z\n"broken\n\n')).toEqual([" #p", "/x", "/z", '"broken']);
    expect(parse('"a\nb"\n"\\141\\t"\n')).toEqual(["a\nb", "a\t"]);
    expect(parse("x\0y\n")).toEqual(["x"]);
  });

  /** Another repository of the user's, with a blob gitctx must never print. */
  function victim(): { dir: string; blob: string; objects: string } {
    const other = makeRepo();
    other.write("secret.txt", "TOP SECRET PLAN\n");
    other.commit("private");
    return { dir: other.dir, blob: other.git(["rev-parse", "HEAD:secret.txt"]).trim(), objects: join(realpathSync(other.dir), ".git", "objects") };
  }

  const bypasses: Array<[string, (repo: TestRepo, objects: string) => Buffer]> = [
    ["C-quoted with octal escapes", (_repo, far) => Buffer.from(`"${far.replaceAll("/", "\\057")}"\n`)],
    [
      "behind a space and a #, through an unknown directory",
      (repo, far) => {
        mkdirSync(join(repo.dir, ".git", "objects", " #"));
        return Buffer.from(` #/..${"/..".repeat(depthOf(join(repo.dir, ".git", "objects")))}${far}\n`);
      },
    ],
    [
      "nested: a store inside the repository whose own alternates lead out",
      (repo, far) => {
        writeNested(join(repo.dir, ".git", "objects", "store"), `${far}\n`);
        return Buffer.from("store\n");
      },
    ],
    [
      "relative, up out of the repository",
      (repo, far) => Buffer.from(`${"../".repeat(depthOf(join(repo.dir, ".git", "objects")))}${far.slice(1)}\n`),
    ],
  ];

  for (const [name, make] of bypasses) {
    it(`alternates ${name}: plain git prints the other repository's blob, every gitctx tool and the hook refuse`, async () => {
      const other = victim();
      const repo = twoFileRepo();
      writeFileSync(join(repo.dir, ".git", "objects", "info", "alternates"), make(repo, other.objects));
      expect(plainGit(repo.dir, ["cat-file", "-p", other.blob]).stdout).toContain("TOP SECRET PLAN");
      const results = await every(repo.dir);
      expect(codes(results)).toEqual(["unsafe_repository"]);
      expect(message(results[0])).toContain(`The repository borrows objects from ${other.objects}`);
      expect(JSON.stringify(results)).not.toContain("SECRET");
      expect((await hook(repo.dir)).verdict).toBe("ask");
    });
  }

  it("a store inside the repository is the repository's own: taken, and its objects served", async () => {
    const repo = twoFileRepo();
    const objects = join(repo.dir, ".git", "objects");
    const store = join(objects, "store");
    mkdirSync(store);
    // Move every loose object of the repository into the store: only the alternate can serve them now.
    execFileSync("bash", ["-c", `for d in [0-9a-f][0-9a-f]; do mv "$d" store/; done`], { cwd: objects });
    writeFileSync(join(objects, "info", "alternates"), "store\n");
    expect(plainGit(repo.dir, ["log", "--oneline"]).stdout).toContain("first");
    const toolbox = createToolbox({ root: repo.dir });
    const log = await toolbox.execute("git_log", {});
    await toolbox.close();
    expect(log.ok && log.text).toContain("first");
  });

  it("GIT_ALTERNATE_OBJECT_DIRECTORIES in the caller's environment lends plain git the objects, never gitctx's git", async () => {
    const other = victim();
    const repo = twoFileRepo();
    expect(plainGit(repo.dir, ["cat-file", "-p", other.blob], fixtureEnv({ GIT_ALTERNATE_OBJECT_DIRECTORIES: other.objects })).stdout).toContain(
      "TOP SECRET PLAN",
    );
    const before = process.env.GIT_ALTERNATE_OBJECT_DIRECTORIES;
    process.env.GIT_ALTERNATE_OBJECT_DIRECTORIES = other.objects;
    try {
      const toolbox = createToolbox({ root: repo.dir });
      const show = await toolbox.execute("git_show", { commit: other.blob });
      await toolbox.close();
      expect(show.ok ? "ok" : show.error.code).toBe("bad_revision");
      expect(JSON.stringify(show)).not.toContain("SECRET");
    } finally {
      if (before === undefined) delete process.env.GIT_ALTERNATE_OBJECT_DIRECTORIES;
      else process.env.GIT_ALTERNATE_OBJECT_DIRECTORIES = before;
    }
  });

  it("an alternates file that is a FIFO in a store inside the repository: refused before git blocks on it", async () => {
    const repo = twoFileRepo();
    const store = join(repo.dir, ".git", "objects", "store");
    mkdirSync(join(store, "info"), { recursive: true });
    execFileSync("mkfifo", [join(store, "info", "alternates")]);
    writeFileSync(join(repo.dir, ".git", "objects", "info", "alternates"), "store\n");
    expect(spawnSync("git", ["log", "-1"], { cwd: repo.dir, env: fixtureEnv(), timeout: 2_000 }).error?.message).toMatch(/ETIMEDOUT/);
    const results = await every(repo.dir);
    expect(codes(results)).toEqual(["unsafe_repository"]);
    expect(message(results[0])).toContain("store/info/alternates is a FIFO");
  });
});

/** How many directories deep a path is: that many `..` lead from it to `/`. */
function depthOf(path: string): number {
  return realpathSync(path).split("/").length - 1;
}

function writeNested(store: string, text: string): void {
  mkdirSync(join(store, "info"), { recursive: true });
  writeFileSync(join(store, "info", "alternates"), text);
}

describe("special files named by config and legacy remote files", () => {
  /** Plain git status does not finish within two seconds. */
  function blocks(dir: string, args = ["status"]): void {
    expect(spawnSync("git", args, { cwd: dir, env: fixtureEnv(), timeout: 2_000 }).error?.message).toMatch(/ETIMEDOUT/);
  }

  for (const key of ["core.attributesFile", "core.excludesFile"]) {
    it(`${key} naming a FIFO: plain git blocks, every tool and the hook refuse at once, naming the key and file`, async () => {
      const repo = twoFileRepo();
      const fifo = join(tempDir(), "fifo");
      execFileSync("mkfifo", [fifo]);
      repo.git(["config", key, fifo]);
      // A changed file: git diff looks up its diff driver in the attributes (status may not need them at all).
      repo.write("a.txt", "alpha 2\n");
      blocks(repo.dir, key === "core.attributesFile" ? ["diff"] : ["status"]);
      const results = await every(repo.dir);
      expect(codes(results)).toEqual(["unsafe_repository"]);
      expect(message(results[0])).toContain(`sets ${key} to ${fifo}, a FIFO`);
      expect((await hook(repo.dir)).verdict).toBe("ask");
    });
  }

  it("core.attributesFile=/dev/zero: plain git grows until a memory limit stops it, gitctx refuses", async () => {
    const repo = twoFileRepo();
    repo.git(["config", "core.attributesFile", "/dev/zero"]);
    repo.write("a.txt", "alpha 2\n");
    const plain = plainGitWithin(200_000_000, repo.dir, ["diff"], 30_000);
    expect(plain.status).not.toBe(0);
    expect(plain.stderr).toMatch(/out of memory|cannot allocate/i);
    const results = await every(repo.dir);
    expect(codes(results)).toEqual(["unsafe_repository"]);
    expect(message(results[0])).toContain("sets core.attributesFile to /dev/zero, a device");
  });

  it("core.excludesFile naming a sparse 8 GiB file: plain git allocates it whole and dies under a limit, gitctx refuses", async () => {
    const repo = twoFileRepo();
    const huge = join(tempDir(), "ignore");
    truncateSync(writeEmpty(huge), 8 * GIB);
    repo.git(["config", "core.excludesFile", huge]);
    const plain = plainGitWithin(200_000_000, repo.dir, ["status"], 30_000);
    expect(plain.status).not.toBe(0);
    const results = await every(repo.dir);
    expect(codes(results)).toEqual(["unsafe_repository"]);
    expect(message(results[0])).toContain("a file of 8192 MiB");
  });

  it("/dev/null, a directory, a missing file and a relative regular file: the answer plain git gives", async () => {
    for (const value of ["/dev/null", ".", "no-such-file", "team.ignore"]) {
      for (const key of ["core.excludesFile", "core.attributesFile"]) {
        const repo = twoFileRepo();
        repo.write("team.ignore", "*.log\n").write("x.log", "x\n").write("y.txt", "y\n");
        repo.git(["config", key, value]);
        const plain = plainGit(repo.dir, ["status", "--porcelain", "--untracked-files=all"]);
        const toolbox = createToolbox({ root: repo.dir });
        const status = await toolbox.execute("git_status", {});
        await toolbox.close();
        if (plain.status !== 0) {
          // git itself fails (a directory as the ignore file): so does gitctx, with git's words.
          expect(message(status)).toContain(plain.stderr.trim());
          continue;
        }
        expect(status.ok ? "ok" : status.error).toBe("ok");
        const entries = status.ok ? (status.data as { entries: Array<{ path: string; kind: string }> }).entries : [];
        const untracked = entries
          .filter((entry) => entry.kind === "untracked")
          .map((entry) => entry.path)
          .sort();
        expect(untracked).toEqual(
          plain.stdout
            .split("\n")
            .filter((line) => line.startsWith("??"))
            .map((line) => line.slice(3))
            .sort(),
        );
      }
    }
  });

  it("a submodule's own config naming a FIFO: plain git status blocks in the submodule, gitctx refuses", async () => {
    const base = tempDir();
    execFileSync(
      "bash",
      [
        "-c",
        `set -e
         git -c init.defaultBranch=main init -q sub && cd sub && echo x > x.txt && git add x.txt && git commit -qm s && cd ..
         git -c init.defaultBranch=main init -q top && cd top && echo a > a.txt && git add a.txt && git commit -qm t
         git -c protocol.file.allow=always submodule add -q ../sub lib && git commit -qm sub
         mkfifo ../fifo && git -C lib config core.attributesFile "$PWD/../fifo"
         # Same size, another time: status must read the file again in the submodule, through its attributes.
         touch -d @$(( $(date +%s) + 10 )) lib/x.txt`,
      ],
      { cwd: base, env: fixtureEnv() },
    );
    const top = join(base, "top");
    blocks(top);
    const results = await every(top);
    expect(codes(results)).toEqual(["unsafe_repository"]);
    expect(message(results[0])).toContain("The config of the submodule lib sets core.attributesFile");
  });

  it("~user/ paths, which git reads in that user's home whatever HOME is: refused for named files and includes", async () => {
    const home = execFileSync("getent", ["passwd", "nobody"], { encoding: "utf8" }).split(":")[5]!;
    for (const key of ["core.attributesFile", "include.path"]) {
      const repo = twoFileRepo();
      repo.git(["config", key, "~nobody/planted"]);
      // git expands it to that user's home: the file there is whatever that user put there (a FIFO, say).
      expect(plainGit(repo.dir, ["config", "--type=path", key]).stdout.trim()).toBe(`${home}/planted`);
      const results = await every(repo.dir);
      expect(codes(results)).toEqual(["unsafe_repository"]);
      expect(message(results[0])).toMatch(/~nobody\/planted.*another user's home directory/);
    }
  });

  for (const legacy of ["branches", "remotes"]) {
    it(`a FIFO at .git/${legacy}/<remote> for an undefined upstream: plain git status blocks, gitctx refuses`, async () => {
      const repo = twoFileRepo();
      repo.git(["config", "branch.main.remote", "upstream"]);
      repo.git(["config", "branch.main.merge", "refs/heads/main"]);
      mkdirSync(join(repo.dir, ".git", legacy), { recursive: true });
      execFileSync("mkfifo", [join(repo.dir, ".git", legacy, "upstream")]);
      blocks(repo.dir);
      const results = await every(repo.dir);
      expect(codes(results)).toEqual(["unsafe_repository"]);
      expect(message(results[0])).toContain(`${legacy}/upstream is a FIFO`);
      expect((await hook(repo.dir)).verdict).toBe("ask");
    });
  }

  it("a legacy remotes/<name> file that git wrote still works", async () => {
    const repo = twoFileRepo();
    mkdirSync(join(repo.dir, ".git", "remotes"), { recursive: true });
    writeFileSync(
      join(repo.dir, ".git", "remotes", "upstream"),
      "URL: https://example.com/x.git\nPull: refs/heads/main:refs/remotes/upstream/main\n",
    );
    const results = await every(repo.dir);
    expect(codes(results)).toEqual(["ok"]);
  });
});

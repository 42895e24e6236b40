/**
 * Git LFS repositories read as the user's own git reads them. The reference is plain git run as the user, with
 * the user's LFS set-up: the real git-lfs when it is installed (CI installs it), otherwise a clean filter script
 * that writes what git-lfs writes for these files. gitctx runs neither: it cleans with its own filter
 * (src/git/lfs-filter.ts). Each state is a fresh repository, and gitctx answers before the user's git runs (which
 * may write a refreshed index). Then the hostile variants: a config that names any other program under
 * filter.lfs, or a `git-lfs` on PATH that is not git-lfs, never runs.
 */
import { spawnSync } from "node:child_process";
import { createHash } from "node:crypto";
import { chmodSync, mkdirSync, readFileSync, rmSync, symlinkSync, utimesSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { createToolbox, type ToolboxOptions } from "../src/index.js";
import { GitRunner } from "../src/git/run.js";
import { listing, trap } from "./fixtures/hostile.js";
import { fixtureEnv, makeRepo, plainGit, tempDir, type TestRepo } from "./fixtures/repo.js";
import { okOf } from "./fixtures/calls.js";

const GIT_LFS = spawnSync("git-lfs", ["version"], { stdio: "ignore" }).status === 0;
const REAL_GIT = spawnSync("sh", ["-c", "command -v git"], { encoding: "utf8" }).stdout.trim();

/** What `git lfs install` writes to ~/.gitconfig. */
const LFS_INSTALL =
  '[filter "lfs"]\n\tclean = git-lfs clean -- %f\n\tsmudge = git-lfs smudge -- %f\n\tprocess = git-lfs filter-process\n\trequired = true\n';
const ATTRIBUTES = "*.bin filter=lfs diff=lfs merge=lfs -text\n";

/**
 * git-lfs's clean for the files these tests make, as a script: nothing for an empty file, a pointer (under 1024
 * bytes) unchanged, else the pointer of the content's SHA-256 and size.
 */
const CLEAN_SCRIPT = `#!/bin/sh
tmp=$(mktemp) || exit 1
cat > "$tmp"
size=$(wc -c < "$tmp" | tr -d ' ')
if [ "$size" -eq 0 ]; then :
elif [ "$size" -lt 1024 ] && head -n 1 "$tmp" | grep -qx 'version https://git-lfs.github.com/spec/v1'; then cat "$tmp"
else printf 'version https://git-lfs.github.com/spec/v1\\noid sha256:%s\\nsize %s\\n' "$(sha256sum "$tmp" | cut -d' ' -f1)" "$size"
fi
rm -f "$tmp"
`;

function home(gitconfig: string): string {
  const dir = tempDir("gitctx-lfs-home-");
  writeFileSync(join(dir, ".gitconfig"), gitconfig);
  return dir;
}

/** The user's home as gitctx reads it: the standard set-up. */
const USER_HOME = home(LFS_INSTALL);
/** The home the reference git runs with: the same, or the script standing in for a git-lfs that is not installed. */
const REFERENCE_HOME = GIT_LFS ? USER_HOME : scriptedHome();

function scriptedHome(): string {
  const script = join(tempDir("gitctx-lfs-script-"), "lfs-clean");
  writeFileSync(script, CLEAN_SCRIPT);
  chmodSync(script, 0o755);
  return home(`[filter "lfs"]\n\tclean = ${script} %f\n\trequired = true\n`);
}

/** Plain git as the user runs it: their home, so their LFS set-up. */
function usersGit(repo: TestRepo, args: string[], input?: Buffer): string {
  const env: NodeJS.ProcessEnv = { ...fixtureEnv(), HOME: REFERENCE_HOME, GIT_CONFIG_NOSYSTEM: "1" };
  delete env.GIT_CONFIG_GLOBAL;
  const result = spawnSync("git", args, { cwd: repo.dir, env, ...(input === undefined ? {} : { input }) });
  if (result.status !== 0) throw new Error(`git ${args.join(" ")} failed: ${result.stderr.toString()}`);
  return result.stdout.toString("utf8");
}

/** Deterministic bytes of every value (NULs included), `size` long. */
function bytes(size: number, seed: number): Buffer {
  const out = Buffer.alloc(size);
  let x = seed;
  for (let i = 0; i < size; i++) {
    x = (x * 1103515245 + 12345) >>> 0;
    out[i] = x >>> 24;
  }
  return out;
}

const MODEL = bytes(5000, 1);
/** More than one packet of git's filter protocol (65516 bytes). */
const WEIGHTS = bytes(200_000, 2);

function pointerOf(content: Buffer): string {
  return `version https://git-lfs.github.com/spec/v1\noid sha256:${createHash("sha256").update(content).digest("hex")}\nsize ${content.length}\n`;
}

/**
 * An LFS repository as the user's git makes it: model.bin, weights.bin and an empty empty.bin tracked by LFS
 * (pointers in the index, the content in the work tree), unpulled.bin committed as a pointer whose content was
 * never fetched (the pointer is in the work tree too), and a README.
 */
function lfsRepo(): TestRepo {
  const repo = makeRepo();
  repo.write(".gitattributes", ATTRIBUTES).write("README.md", "# models\n").write("model.bin", MODEL).write("weights.bin", WEIGHTS);
  repo.write("empty.bin", "").write("unpulled.bin", pointerOf(bytes(3000, 3)));
  usersGit(repo, ["add", "-A"]);
  usersGit(repo, ["commit", "-q", "--no-verify", "-m", "models"]);
  expect(usersGit(repo, ["cat-file", "blob", ":model.bin"])).toBe(pointerOf(MODEL));
  expect(usersGit(repo, ["cat-file", "blob", ":unpulled.bin"])).toBe(pointerOf(bytes(3000, 3)));
  return repo;
}

/** Moves a file's times away from what the index recorded, so git must re-read it through the clean filter. */
function touch(repo: TestRepo, path: string): void {
  const later = Math.floor(Date.now() / 1000) + 10;
  utimesSync(join(repo.dir, path), later, later);
}

const ok = okOf;

interface Answers {
  status: string[];
  unstaged: string;
  staged: string;
  numstat: string[];
  context: string[];
}

/** What gitctx answers: git_status, git_diff (unstaged and staged), and git_context's status and untracked parts. */
async function gitctx(
  repo: TestRepo,
  options: Partial<ToolboxOptions> = {},
): Promise<Answers & { lfs: unknown; neutralised: unknown; text: string }> {
  const toolbox = createToolbox({ root: repo.dir, userConfig: { HOME: USER_HOME, GIT_CONFIG_NOSYSTEM: "1" }, ...options });
  try {
    const status = ok(await toolbox.execute("git_status", {}));
    const unstaged = ok(await toolbox.execute("git_diff", {}));
    const staged = ok(await toolbox.execute("git_diff", { staged: true }));
    const context = ok(await toolbox.execute("git_context", { sections: ["status", "untracked"] }));
    const snapshot = context.data.snapshot;
    return {
      status: status.data.entries.map((entry: any) => `${entry.index}${entry.worktree} ${entry.path}`),
      unstaged: unstaged.data.patch ?? "",
      staged: staged.data.patch ?? "",
      numstat: unstaged.data.files.map((file: any) => (file.binary ? `- - ${file.path}` : `${file.additions} ${file.deletions} ${file.path}`)),
      context: [
        ...snapshot.status.value.entries.map((entry: any) => `${entry.index}${entry.worktree} ${entry.path}`),
        ...snapshot.untracked.value.files.map((path: string) => `?? ${path}`),
      ],
      lfs: status.data.lfs,
      neutralised: status.data.neutralised,
      text: `${status.text}\n${context.text}`,
    };
  } finally {
    await toolbox.close();
  }
}

/** What the user's own git answers to the same questions. */
function reference(repo: TestRepo): Answers {
  const status = usersGit(repo, ["status", "--porcelain=v2", "--untracked-files=all"])
    .split("\n")
    .filter((line) => line !== "")
    .map((line) => (line.startsWith("? ") ? `?? ${line.slice(2)}` : `${line.split(" ")[1]} ${line.split(" ").at(-1)}`));
  const diff = ["diff", "--no-color", "--no-ext-diff", "--src-prefix=a/", "--dst-prefix=b/"];
  return {
    status,
    unstaged: usersGit(repo, diff),
    staged: usersGit(repo, [...diff, "--cached"]),
    numstat: usersGit(repo, ["diff", "--numstat"])
      .split("\n")
      .filter((line) => line !== "")
      .map((line) => line.split("\t").join(" ")),
    // The snapshot lists tracked changes, then untracked files.
    context: [...status.filter((line) => !line.startsWith("??")), ...status.filter((line) => line.startsWith("??"))],
  };
}

describe("Git LFS: gitctx answers as the user's own git with git-lfs", () => {
  it(`touched LFS files are clean, as for the user (reference: ${GIT_LFS ? "git-lfs" : "a clean filter script"})`, async () => {
    const repo = lfsRepo();
    for (const path of ["model.bin", "weights.bin", "empty.bin", "unpulled.bin", "README.md"]) touch(repo, path);
    // The class: with the filter switched off, git compares the content with the pointers.
    expect(plainGit(repo.dir, ["status", "--porcelain"]).stdout).toBe(" M model.bin\n M weights.bin\n");
    expect((await gitctx(repo, { userConfig: false })).status).toEqual([".M model.bin", ".M weights.bin"]);

    const before = listing(repo.dir);
    const answers = await gitctx(repo);
    // Read-only: no index written, no LFS object stored (git-lfs's clean would store one), nothing else.
    expect(listing(repo.dir)).toEqual(before);
    expect(answers.status).toEqual([]);
    expect(answers.unstaged).toBe("");
    expect(answers.context).toEqual([]);
    expect(answers.lfs).toEqual({ gitLfsOnPath: GIT_LFS });
    // The standard set-up is not a hostile one.
    expect(answers.neutralised).toEqual([]);
    expect(answers.text).not.toContain("Warning");
    expect(answers.text.includes("git-lfs is not on PATH")).toBe(!GIT_LFS);
    const { status, unstaged, staged, numstat, context } = answers;
    expect({ status, unstaged, staged, numstat, context }).toEqual(reference(repo));
  });

  it("a really modified LFS file is modified, and its diff is the diff of the pointers, as for the user", async () => {
    const repo = lfsRepo();
    const changed = Buffer.concat([MODEL, Buffer.from("more")]);
    repo.write("model.bin", changed);
    touch(repo, "weights.bin");
    const { lfs: _lfs, neutralised: _n, text: _t, ...answers } = await gitctx(repo);
    expect(answers.status).toEqual([".M model.bin"]);
    expect(answers.unstaged).toContain(`-size 5000\n+oid sha256:${createHash("sha256").update(changed).digest("hex")}\n+size 5004\n`);
    expect(answers.numstat).toEqual(["2 2 model.bin"]);
    expect(answers).toEqual(reference(repo));
  });

  it("a pointer in the work tree where the content was checked out: modified for git status, no diff, as for the user", async () => {
    const repo = lfsRepo();
    // As after a checkout with GIT_LFS_SKIP_SMUDGE: the file's size changed, so git status says modified without
    // looking; git diff looks, through the filter, and finds the pointer it has.
    repo.write("model.bin", pointerOf(MODEL));
    const { lfs: _lfs, neutralised: _n, text: _t, ...answers } = await gitctx(repo);
    expect(answers.status).toEqual([".M model.bin"]);
    expect(answers.unstaged).toBe("");
    expect(answers).toEqual(reference(repo));
  });

  it("a new untracked LFS file is untracked, as for the user", async () => {
    const repo = lfsRepo();
    repo.write("new.bin", bytes(4000, 4));
    touch(repo, "model.bin");
    const { lfs: _lfs, neutralised: _n, text: _t, ...answers } = await gitctx(repo);
    expect(answers.status).toEqual(["?? new.bin"]);
    expect(answers.context).toEqual(["?? new.bin"]);
    expect(answers).toEqual(reference(repo));
  });

  it("a staged LFS change shows as staged pointers, the work tree clean, as for the user", async () => {
    const repo = lfsRepo();
    repo.write("weights.bin", bytes(150_000, 5));
    usersGit(repo, ["add", "weights.bin"]);
    touch(repo, "weights.bin");
    const { lfs: _lfs, neutralised: _n, text: _t, ...answers } = await gitctx(repo);
    expect(answers.status).toEqual(["M. weights.bin"]);
    expect(answers.staged).toContain(`+size 150000\n`);
    expect(answers.unstaged).toBe("");
    expect(answers).toEqual(reference(repo));
  });

  it("the set-up in the repository's own config (git lfs install --local) reads the same, and warns of nothing", async () => {
    const repo = lfsRepo();
    repo.git(["config", "filter.lfs.process", "git-lfs filter-process"]);
    repo.git(["config", "filter.lfs.smudge", "git-lfs smudge -- %f"]);
    repo.git(["config", "filter.lfs.clean", "git-lfs clean -- %f"]);
    repo.git(["config", "filter.lfs.required", "true"]);
    touch(repo, "model.bin");
    const answers = await gitctx(repo, { userConfig: false });
    expect(answers.status).toEqual([]);
    expect(answers.neutralised).toEqual([]);
    expect(answers.lfs).toEqual({ gitLfsOnPath: GIT_LFS });
  });

  it("without any LFS set-up, LFS attributes alone change nothing: gitctx compares raw content, as the user's git does", async () => {
    const repo = lfsRepo();
    touch(repo, "model.bin");
    const answers = await gitctx(repo, { userConfig: { HOME: home(""), GIT_CONFIG_NOSYSTEM: "1" } });
    // (weights.bin too when it is racily clean: git then re-reads it, and its content is not its pointer.)
    expect(answers.status).toContain(".M model.bin");
    expect(answers.lfs).toBeUndefined();
    const plain = plainGit(repo.dir, ["status", "--porcelain"]).stdout;
    expect(answers.status).toEqual(
      plain
        .split("\n")
        .filter((line) => line !== "")
        .map((line) => `.M ${line.slice(3)}`),
    );
  });
});

describe("Git LFS in a new worktree", () => {
  it("enter_worktree leaves pointers where the user's checkout would fetch content, says so, and reads them clean", async () => {
    const repo = lfsRepo();
    const toolbox = createToolbox({ root: repo.dir, mode: "workspace-write", userConfig: { HOME: USER_HOME, GIT_CONFIG_NOSYSTEM: "1" } });
    try {
      const entered = ok(await toolbox.execute("enter_worktree", { name: "models" }));
      const path = entered.data.worktreePath as string;
      expect(readFileSync(join(path, "model.bin"), "utf8")).toBe(pointerOf(MODEL));
      // empty.bin is no pointer: of the four LFS files, three are pointers.
      expect(entered.data.unfilteredFiles).toBe(4);
      expect(entered.text).toContain(
        'Checked out 4 files without the repository\'s filter "lfs" (gitctx runs no filter), 3 of them LFS pointer files',
      );
      expect(entered.text).toContain(`&& git lfs pull`);
      for (const file of ["model.bin", "weights.bin", "unpulled.bin"]) utimesSync(join(path, file), Date.now() / 1000 + 10, Date.now() / 1000 + 10);
      const status = ok(await toolbox.execute("git_status", {}));
      expect(status.data.entries).toEqual([]);
      expect(ok(await toolbox.execute("exit_worktree", { action: "remove" })).data).toBeDefined();
    } finally {
      await toolbox.close();
    }
  });
});

/** Inputs to the clean filter, and what git-lfs makes of each (checked against git-lfs 3.3 when it is installed). */
const POINTER = pointerOf(MODEL);
const ZEROS = "0".repeat(64);
const CLEAN_CASES: Array<{ name: string; input: Buffer; passes: boolean }> = [
  { name: "empty", input: Buffer.alloc(0), passes: true },
  { name: "a pointer", input: Buffer.from(POINTER), passes: true },
  { name: "a pointer without its last newline", input: Buffer.from(POINTER.trimEnd()), passes: true },
  { name: "a pointer with CRLF", input: Buffer.from(POINTER.replaceAll("\n", "\r\n")), passes: true },
  { name: "a pointer among blank lines", input: Buffer.from(`  \n${POINTER}\n\n`), passes: true },
  { name: "a pointer with a blank line inside", input: Buffer.from(POINTER.replace("\nsize", "\n\nsize")), passes: true },
  { name: "a pointer between no-break spaces", input: Buffer.from(`\u00a0${POINTER}\u00a0`), passes: true },
  {
    name: "an old version name",
    input: Buffer.from(POINTER.replace("https://git-lfs.github.com/spec/v1", "https://hawser.github.com/spec/v1")),
    passes: true,
  },
  { name: "size +5", input: Buffer.from(`version https://git-lfs.github.com/spec/v1\noid sha256:${ZEROS}\nsize +5\n`), passes: true },
  { name: "size -0", input: Buffer.from(`version https://git-lfs.github.com/spec/v1\noid sha256:${ZEROS}\nsize -0\n`), passes: true },
  { name: "an extension first", input: Buffer.from(`ext-0-foo sha256:${"1".repeat(64)}\n${POINTER}`), passes: true },
  { name: "padded to 900 bytes", input: Buffer.from(POINTER + " ".repeat(900 - POINTER.length)), passes: true },
  { name: "padded to 1024 bytes", input: Buffer.from(POINTER + " ".repeat(1024 - POINTER.length)), passes: false },
  { name: "an extra line", input: Buffer.from(`${POINTER}extra x\n`), passes: false },
  {
    name: "two extensions of one priority",
    input: Buffer.from(POINTER.replace("\noid", `\next-1-a sha256:${"1".repeat(64)}\next-1-b sha256:${"2".repeat(64)}\noid`)),
    passes: false,
  },
  { name: "an upper-case oid", input: Buffer.from(POINTER.replace(/oid sha256:[0-9a-f]+/, `oid sha256:${"A".repeat(64)}`)), passes: false },
  {
    name: "a size past int64",
    input: Buffer.from(`version https://git-lfs.github.com/spec/v1\noid sha256:${ZEROS}\nsize 99999999999999999999\n`),
    passes: false,
  },
  { name: "two spaces after version", input: Buffer.from(POINTER.replace("version ", "version  ")), passes: false },
  { name: "a NUL after it", input: Buffer.from(`${POINTER}\0`), passes: false },
  { name: "text", input: Buffer.from("hello\n"), passes: false },
  { name: "1023 bytes", input: bytes(1023, 6), passes: false },
  { name: "1024 bytes", input: bytes(1024, 7), passes: false },
  { name: "200 KB", input: WEIGHTS, passes: false },
];

function blobId(content: Buffer): string {
  return createHash("sha1").update(`blob ${content.length}\0`).update(content).digest("hex");
}

describe("gitctx's LFS clean filter writes what git-lfs writes", () => {
  it("for empty files, pointers (passed on unchanged) and content (made a pointer), every case through one filter process", async () => {
    const repo = makeRepo();
    repo.write(".gitattributes", ATTRIBUTES);
    const runner = new GitRunner();
    try {
      const location = { gitDir: join(repo.dir, ".git"), workTree: repo.dir, cwd: repo.dir, filterDrivers: [], lfsFilter: true };
      for (const { name, input, passes } of CLEAN_CASES) {
        const expected = blobId(passes ? input : Buffer.from(pointerOf(input)));
        const result = await runner.run(location, "hash-object", ["--stdin", "--path=x.bin"], { input });
        expect(result.exitCode, `${name}: ${result.stderr}`).toBe(0);
        expect(result.stdout.trim(), name).toBe(expected);
        if (GIT_LFS) expect(usersGit(repo, ["hash-object", "--stdin", "--path=x.bin"], input).trim(), `${name} with git-lfs`).toBe(expected);
      }
      // Many files through one process: a status that re-reads them all.
      for (let i = 0; i < 30; i++) repo.write(`f${i}.bin`, bytes(100 + i * 997, i));
      usersGit(repo, ["add", "-A"]);
      usersGit(repo, ["commit", "-q", "--no-verify", "-m", "files"]);
      for (let i = 0; i < 30; i++) touch(repo, `f${i}.bin`);
      const status = await runner.run(location, "status", ["--porcelain"]);
      expect(status.exitCode, status.stderr).toBe(0);
      expect(status.stdout).toBe("");
    } finally {
      runner.close();
    }
  });
});

describe("Git LFS in a hostile repository: no program a config names runs", () => {
  it("a `git-lfs` on PATH that is not git-lfs: plain git runs it, gitctx reads the standard set-up with its own filter", async () => {
    const t = trap();
    const bin = join(t.dir, "bin");
    mkdirSync(bin);
    symlinkSync(REAL_GIT, join(bin, "git"));
    const fake = t.script("git-lfs", "exit 1");
    symlinkSync(fake, join(bin, "git-lfs"));
    const repo = lfsRepo();
    repo.git(["config", "filter.lfs.process", "git-lfs filter-process"]);
    repo.git(["config", "filter.lfs.required", "true"]);
    touch(repo, "model.bin");
    // The attack: the user's own git runs whatever git-lfs is first on PATH.
    plainGit(repo.dir, ["status", "--porcelain"], { ...fixtureEnv(), PATH: `${bin}:${process.env.PATH}` });
    expect(t.lines()).toEqual(["git-lfs filter-process"]);
    rmSync(t.marker);

    const answers = await gitctx(repo, { userConfig: false, gitSearchPath: bin });
    expect(t.lines()).toEqual([]);
    expect(answers.status).toEqual([]);
    expect(answers.unstaged).toBe("");
    expect(answers.lfs).toEqual({ gitLfsOnPath: true });
  });

  it("an LFS extension in the repository's config: git-lfs runs it for the user's git, gitctx runs nothing and names it", async () => {
    const t = trap();
    const repo = lfsRepo();
    repo.git(["config", "lfs.extension.evil.clean", `${t.script("evil-clean", "cat")} %f`]);
    repo.git(["config", "lfs.extension.evil.smudge", `${t.script("evil-smudge", "cat")} %f`]);
    repo.git(["config", "lfs.extension.evil.priority", "0"]);
    touch(repo, "model.bin");
    if (GIT_LFS) {
      usersGit(repo, ["status", "--porcelain"]);
      expect(t.lines()).toContain("evil-clean model.bin");
      rmSync(t.marker);
    }
    const answers = await gitctx(repo);
    expect(t.lines()).toEqual([]);
    expect(answers.neutralised).toEqual([
      { key: "lfs.extension.evil.clean", scope: "local" },
      { key: "lfs.extension.evil.smudge", scope: "local" },
    ]);
    expect(answers.text).toContain("Warning: this repository's config names programs git would run");
  });

  it("filter.lfs.clean naming another program: plain git runs it, gitctx runs nothing and says so", async () => {
    const t = trap();
    const repo = lfsRepo();
    repo.git(["config", "filter.lfs.clean", `${t.script("pwned")} %f`]);
    touch(repo, "model.bin");
    plainGit(repo.dir, ["status", "--porcelain"]);
    expect(t.lines()).toContain("pwned model.bin");
    rmSync(t.marker);

    const answers = await gitctx(repo, { userConfig: false });
    expect(t.lines()).toEqual([]);
    expect(answers.neutralised).toEqual([{ key: "filter.lfs.clean", scope: "local" }]);
    expect(answers.text).toContain("Warning: this repository's config names programs git would run");
    // Not git-lfs, so not read as LFS: gitctx cannot know what that program would have written.
    expect(answers.lfs).toBeUndefined();
    expect(answers.status).toContain(".M model.bin");
  });

  it("filter.lfs.process naming another program over the user's standard set-up: the repository's wins for git, and never runs in gitctx", async () => {
    const t = trap();
    const repo = lfsRepo();
    repo.git(["config", "filter.lfs.process", t.script("pwned-process", "exit 1")]);
    touch(repo, "model.bin");
    const env: NodeJS.ProcessEnv = { ...fixtureEnv(), HOME: USER_HOME, GIT_CONFIG_NOSYSTEM: "1" };
    delete env.GIT_CONFIG_GLOBAL;
    plainGit(repo.dir, ["status", "--porcelain"], env);
    expect(t.lines()).toEqual(["pwned-process"]);
    rmSync(t.marker);

    const answers = await gitctx(repo);
    expect(t.lines()).toEqual([]);
    expect(answers.neutralised).toEqual([{ key: "filter.lfs.process", scope: "local" }]);
    expect(answers.lfs).toBeUndefined();
  });
});

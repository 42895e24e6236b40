/**
 * An `allow` is a promise: running that exact line reads the repository and nothing else. This suite keeps the
 * promise honest by running every line the classifier allows, for real, with bash, under strace, in hostile
 * repositories (each a copy of one repository with one family of program- or file-naming settings armed:
 * fsmonitor, filters, an LFS-like process filter, textconv, external diff, hooks, signatures, paths outside,
 * a hostile submodule), with a fake HOME that holds a planted secret and a global config full of traps. The
 * repository facts come from the real repository check (src/guard/repository-check.ts); a line is run in a
 * variant only where it is still allowed there.
 *
 * For every run: no trap program ran (markers), only bash, git and git's own helpers were executed, nothing was
 * written outside the repository's git directory, nothing was opened outside the repository but the machine's
 * own files (/usr, /lib, /etc, /proc, /dev) and the user's git config, and neither the secret, nor a canary of
 * the files outside, nor /etc/passwd appear in the output. The quoted-parameter lines run twice in the clean
 * repository: with ordinary values, and with values that are options and paths outside.
 *
 * What the user's global config may contain (the reasoning): it is the user's own. Git reads it for every
 * command, and the programs it names for what every git command does (a pager on a terminal, an fsmonitor) run
 * for the user's own `git status` as well, so gitctx promises nothing about them. What the promise covers is
 * that neither the command line nor the repository can select, add or redirect a program or file through it:
 * so the global config here plants aliases, drivers no attribute selects, an editor, ssh, askpass, a credential
 * helper and a man viewer, all traps, and no allowed line may reach one.
 */
import { spawnSync } from "node:child_process";
import { readdirSync, realpathSync, rmSync, statSync } from "node:fs";
import { join, relative } from "node:path";
import { beforeAll, describe, expect, it } from "vitest";
import { inspectRepository } from "../src/guard/repository-check.js";
import { classifyCommand } from "../src/index.js";
import type { OptionTable } from "../src/safety/options.js";
import {
  BLAME_OPTIONS,
  BRANCH_OPTIONS,
  DESCRIBE_OPTIONS,
  DIFF_COMMAND_OPTIONS,
  DIFF_TREE_OPTIONS,
  FOR_EACH_REF_OPTIONS,
  GREP_OPTIONS,
  LOG_OPTIONS,
  LS_FILES_OPTIONS,
  LS_TREE_OPTIONS,
  RANGE_DIFF_OPTIONS,
  SHORTLOG_OPTIONS,
  SHOW_BRANCH_OPTIONS,
  STASH_SHOW_OPTIONS,
  STATUS_OPTIONS,
  TAG_OPTIONS,
} from "../src/safety/git-tables.js";
import { baseRepository, hostileVariants, sandbox, traced, type Sandbox, type TracedRun, type Variant } from "./fixtures/sandbox.js";
import { CORPUS, CORPUS_CONTEXT, CORPUS_ROOT } from "./safety-corpus.js";

let box: Sandbox;
let variants: Variant[];
let gitExecPath: string;
let bashPath: string;
let gitPath: string;

beforeAll(() => {
  box = sandbox();
  variants = hostileVariants(box, baseRepository(box));
  gitExecPath = spawnSync("git", ["--exec-path"], { encoding: "utf8" }).stdout.trim();
  bashPath = realpathSync(spawnSync("sh", ["-c", "command -v bash"], { encoding: "utf8" }).stdout.trim());
  gitPath = realpathSync(spawnSync("sh", ["-c", "command -v git"], { encoding: "utf8" }).stdout.trim());
}, 120_000);

const BENIGN: Record<string, string> = {
  USER: "Ada",
  FILE: "a.txt",
  DIR: "src",
  PATTERN: "alpha",
  NAME: "a.ts",
  BRANCH: "main",
  SINCE: "2000-01-01",
  UNTIL: "2100-01-01",
  COLOR: "never",
};

function hostileValues(): Record<string, string> {
  return {
    USER: `--output=${box.dir}/canary-user`,
    FILE: `--output=${box.dir}/canary-file`,
    DIR: "../outside",
    PATTERN: `--open-files-in-pager=${box.globalTrap}/global-alias`,
    NAME: "../../outside/revs",
    BRANCH: `--output=${box.dir}/canary-branch`,
    SINCE: `--output=${box.dir}/canary-since`,
    UNTIL: `-O${box.outside}/order`,
    COLOR: "always",
  };
}

function env(values: Record<string, string>): Record<string, string> {
  return { PATH: "/usr/local/bin:/usr/bin:/bin", HOME: box.home, LC_ALL: "C", ...values };
}

/** The machine's own files, which bash and git read on every run. */
const SYSTEM = ["/usr/", "/lib/", "/lib64/", "/etc/", "/proc/", "/sys/", "/dev/"];
/** Programs git's own shell scripts (git-submodule.sh in 2.39) run. */
const GIT_SCRIPT_HELPERS = ["/usr/bin/basename", "/usr/bin/envsubst", "/usr/bin/gettext", "/usr/bin/sed", "/usr/bin/uname"];

function inside(dir: string, path: string): boolean {
  const rel = relative(dir, path);
  return rel === "" || (!rel.startsWith("..") && !rel.startsWith("/"));
}

function violations(run: TracedRun, variant: Variant): string[] {
  const out: string[] = [];
  if (run.timedOut) out.push("timed out");
  for (const program of run.executed) {
    const ok = program === bashPath || program === gitPath || inside(gitExecPath, program) || GIT_SCRIPT_HELPERS.includes(program);
    if (!ok) out.push(`ran ${program}`);
  }
  const gitDir = join(variant.repo, ".git");
  for (const path of run.written) {
    if (inside(gitDir, path) || path === "/dev/null" || path === "/dev/tty") continue;
    out.push(`wrote ${path}`);
  }
  const userConfig = [join(box.home, ".gitconfig"), join(box.home, ".config", "git")];
  for (const path of run.read) {
    if (inside(variant.repo, path)) continue;
    if (userConfig.some((c) => inside(c, path))) continue;
    if (SYSTEM.some((prefix) => path.startsWith(prefix))) continue;
    out.push(`read ${path}`);
  }
  const output = run.stdout + run.stderr;
  for (const [what, needle] of [
    ["the secret", box.secret],
    ["a canary of the files outside", box.canary],
    ["/etc/passwd", "root:x:0:0"],
  ] as const) {
    if (output.includes(needle)) out.push(`printed ${what}`);
  }
  for (const line of [...variant.trap.lines(), ...globalTrapLines()]) out.push(`a trap ran: ${line}`);
  return out;
}

function globalTrapLines(): string[] {
  try {
    return spawnSync("cat", [join(box.globalTrap, "marker")], { encoding: "utf8" })
      .stdout.trim()
      .split("\n")
      .filter((l) => l !== "");
  } catch {
    return [];
  }
}

function resetTraps(variant: Variant): void {
  rmSync(variant.trap.marker, { force: true });
  rmSync(join(box.globalTrap, "marker"), { force: true });
}

/** Every entry outside the variants' repositories: what a run must never create, change or remove. */
function outsideListing(): string[] {
  const out: string[] = [];
  const walk = (dir: string): void => {
    for (const name of readdirSync(dir).sort()) {
      const full = join(dir, name);
      if (full === join(box.dir, "variants") || full.startsWith(join(box.dir, "trace-"))) continue;
      if (full === join(box.dir, "traps") || full === join(box.globalTrap, "marker")) continue;
      const info = statSync(full, { throwIfNoEntry: false });
      if (info === undefined) continue;
      out.push(`${relative(box.dir, full)} ${info.isDirectory() ? "d" : `${info.size} ${info.mtimeMs}`}`);
      if (info.isDirectory()) walk(full);
    }
  };
  walk(box.dir);
  return out;
}

function workTreeListing(repo: string): string[] {
  const out: string[] = [];
  const walk = (dir: string): void => {
    for (const name of readdirSync(dir).sort()) {
      if (name === ".git") continue;
      const full = join(dir, name);
      const info = statSync(full);
      out.push(`${relative(repo, full)} ${info.isDirectory() ? "d" : `${info.size} ${info.mtimeMs}`}`);
      if (info.isDirectory()) walk(full);
    }
  };
  walk(repo);
  return out;
}

/** The lines the classifier allows in the corpus's clean repository: the ones to run. */
function allowedLines(): string[] {
  return CORPUS.filter((entry) => classifyCommand(entry.line, CORPUS_CONTEXT).verdict === "allow").map((entry) => entry.line);
}

function localise(line: string, repo: string): string {
  // Canaries first: the sandbox's own path starts with /tmp/gitctx- too.
  return line.replaceAll("/tmp/gitctx-", `${box.dir}/canary-`).replaceAll(CORPUS_ROOT, repo);
}

describe("every allowed line, run for real in hostile repositories", () => {
  it("plain git falls for each variant (the attacks are real)", async () => {
    for (const variant of variants) {
      for (const attack of variant.attack) {
        resetTraps(variant);
        spawnSync("bash", ["-c", attack], { cwd: variant.repo, env: env(BENIGN), stdio: "ignore" });
        expect(variant.trap.lines().length, `${variant.name}: ${attack}`).toBeGreaterThan(0);
      }
      resetTraps(variant);
    }
    // The paths variant: plain git reads the files outside (strace shows it) and blame prints the canary.
    const paths = variants.find((v) => v.name === "paths")!;
    const blame = await traced("git blame a.txt; git log -1 --format=%aN", paths.repo, env(BENIGN), join(box.dir, "trace-attack.txt"));
    expect(blame.read.some((p) => p.startsWith(box.outside))).toBe(true);
    // The tracer sees through symlinks: reading the untracked link is reading the secret, and it says so.
    const clean = variants.find((v) => v.name === "clean")!;
    const link = await traced("cat untracked-secret link-out >/dev/null", clean.repo, env(BENIGN), join(box.dir, "trace-attack.txt"));
    expect(link.read).toContain(join(box.home, ".ssh", "id_rsa"));
    expect(link.read).toContain(join(box.outside, "revs"));
    expect(link.executed).toContain("/usr/bin/cat");
    // The user's global config holds credentials: a listing prints them.
    expect(spawnSync("git", ["config", "--list"], { cwd: clean.repo, env: env(BENIGN), encoding: "utf8" }).stdout).toContain(box.secret);
  }, 120_000);

  it("reads the repository and nothing else, in every variant where it is still allowed", async () => {
    const lines = allowedLines();
    expect(lines.length).toBeGreaterThan(250);
    const failures: string[] = [];
    const summary: string[] = [];
    const before = outsideListing();
    const runVariant = async (variant: Variant): Promise<void> => {
      const facts = await inspectRepository(variant.repo);
      const trace = join(box.dir, `trace-${variant.name}.txt`);
      const workTree = workTreeListing(variant.repo);
      let ran = 0;
      let asked = 0;
      const valueSets = variant.name === "clean" ? [BENIGN, hostileValues()] : [BENIGN];
      for (const line of lines) {
        const local = localise(line, variant.repo);
        const verdict = classifyCommand(local, { cwd: variant.repo, repository: facts });
        if (verdict.verdict !== "allow") {
          asked++;
          continue;
        }
        const sets = /\$[A-Z{]/.test(line) ? valueSets : [BENIGN];
        for (const values of sets) {
          resetTraps(variant);
          const run = await traced(local, variant.repo, env(values), trace);
          ran++;
          const found = violations(run, variant);
          if (found.length > 0)
            failures.push(
              `[${variant.name}] ${JSON.stringify(local)} (${values === BENIGN ? "ordinary values" : "hostile values"}): ${found.join("; ")}`,
            );
        }
      }
      if (variant.name === "clean" && asked > 0) failures.push(`[clean] ${asked} allowed lines asked in a clean repository`);
      const after = workTreeListing(variant.repo);
      if (JSON.stringify(after) !== JSON.stringify(workTree)) failures.push(`[${variant.name}] the work tree changed`);
      summary.push(`${variant.name}: ${ran} runs, ${asked} lines asked`);
    };
    // A few variants at a time: the machine is shared, and each run is a bash, git and strace.
    const queue = [...variants];
    await Promise.all(
      Array.from({ length: 3 }, async () => {
        for (let v = queue.shift(); v !== undefined; v = queue.shift()) await runVariant(v);
      }),
    );
    console.log(`execution corpus: ${lines.length} allowed lines; ${summary.join("; ")}`);
    expect(outsideListing()).toEqual(before);
    expect(failures).toEqual([]);
  }, 1_200_000);

  it("every option the tables call safe, given alone, reads the repository and nothing else", async () => {
    // From the option tables (git's option arrays, 2.39 and 2.55): each flag that takes no value, in a command
    // line of its own, classified and, where allowed, run in the variants whose programs a read could fire.
    const commands: Array<{ table: OptionTable; line: (flag: string) => string }> = [
      { table: LOG_OPTIONS, line: (f) => `git log -2 ${f}` },
      { table: LOG_OPTIONS, line: (f) => `git show ${f} HEAD~1` },
      { table: DIFF_COMMAND_OPTIONS, line: (f) => `git diff ${f}` },
      { table: DIFF_COMMAND_OPTIONS, line: (f) => `git diff --cached ${f}` },
      { table: STATUS_OPTIONS, line: (f) => `git status ${f}` },
      { table: GREP_OPTIONS, line: (f) => `git grep ${f} -e alpha` },
      { table: LS_FILES_OPTIONS, line: (f) => `git ls-files ${f}` },
      { table: BLAME_OPTIONS, line: (f) => `git blame ${f} a.txt` },
      { table: BRANCH_OPTIONS, line: (f) => `git branch ${f}` },
      { table: TAG_OPTIONS, line: (f) => `git tag ${f}` },
      { table: LOG_OPTIONS, line: (f) => `git rev-list -2 ${f} HEAD` },
      { table: SHORTLOG_OPTIONS, line: (f) => `git shortlog ${f} HEAD~2..HEAD` },
      { table: DIFF_TREE_OPTIONS, line: (f) => `git diff-tree -r ${f} HEAD` },
      { table: STASH_SHOW_OPTIONS, line: (f) => `git stash show ${f}` },
      { table: FOR_EACH_REF_OPTIONS, line: (f) => `git for-each-ref ${f}` },
      { table: SHOW_BRANCH_OPTIONS, line: (f) => `git show-branch ${f}` },
      { table: DESCRIBE_OPTIONS, line: (f) => `git describe ${f}` },
      { table: RANGE_DIFF_OPTIONS, line: (f) => `git range-diff ${f} HEAD~2...HEAD` },
      { table: LS_TREE_OPTIONS, line: (f) => `git ls-tree ${f} HEAD` },
    ];
    const lines = new Set<string>();
    for (const { table, line } of commands) {
      for (const def of table.defs) {
        if (def.effect.kind === "deny") continue;
        const name = def.long[0] !== undefined ? `--${def.long[0]}` : `-${def.short[0]!}`;
        if (def.arg !== "required") {
          lines.add(line(name));
          continue;
        }
        // A value-taking option, with a value of its kind (most take a number or a pattern).
        const value = /format|pretty/.test(name)
          ? "%H"
          : name === "-L"
            ? "1,1:a.txt"
            : /date/.test(name)
              ? "iso"
              : /since|until|after|before/.test(name)
                ? "2000-01-01"
                : "1";
        lines.add(line(name.startsWith("--") ? `${name}=${value}` : `${name}${value}`));
      }
    }
    const chosen = variants.filter((v) => ["fsmonitor", "filters", "textconv", "external-diff", "hooks", "submodule", "paths"].includes(v.name));
    const failures: string[] = [];
    let ran = 0;
    const queue = [...chosen];
    await Promise.all(
      Array.from({ length: 3 }, async () => {
        for (let variant = queue.shift(); variant !== undefined; variant = queue.shift()) {
          const facts = await inspectRepository(variant.repo);
          const trace = join(box.dir, `trace-options-${variant.name}.txt`);
          for (const line of lines) {
            if (classifyCommand(line, { cwd: variant.repo, repository: facts }).verdict !== "allow") continue;
            resetTraps(variant);
            const run = await traced(line, variant.repo, env(BENIGN), trace);
            ran++;
            const found = violations(run, variant);
            if (found.length > 0) failures.push(`[${variant.name}] ${JSON.stringify(line)}: ${found.join("; ")}`);
          }
        }
      }),
    );
    console.log(`execution of single options: ${lines.size} lines, ${ran} runs in ${chosen.length} variants`);
    expect(ran).toBeGreaterThan(500);
    expect(failures).toEqual([]);
  }, 1_200_000);
});

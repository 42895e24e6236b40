/**
 * The repository half of the classifier: whether a read command would run a program the repository's own
 * config names (`git status` runs `core.fsmonitor`, `git diff` a textconv or clean filter...). Not pure: it runs
 * `git config --list` through gitctx's hardened runner, so the listing itself runs nothing. Also the hardened
 * rewrite of an allowed read command (`hardenedArgv`).
 */
import { join } from "node:path";
import { GitctxError } from "../errors.js";
import { discoverRepository, dotGitTarget } from "../git/discover.js";
import { firstLine, runChecked } from "../git/failures.js";
import { globalArgs, subcommandArgs } from "../git/hardening.js";
import { GitRunner, type GitLocation } from "../git/run.js";
import { classifyCommand, classifyGitArgs, type Classification, type ClassifyOptions, type ExecutableSetting, type RepositoryFacts } from "./classify.js";
import { executableConfig, isPartialClone, LAZY_FETCH_CONFIG, READ_RELEVANT_CONFIG, settingDisabled } from "./git-tables.js";

export interface InspectOptions {
  /** The runner to use (its timeout applies); default: a new one. */
  runner?: GitRunner;
  /** Inspect a repository owned by another user (git itself would refuse to read it). */
  trustRepository?: boolean;
}

const MAX_SUBMODULE_DEPTH = 16;

/**
 * Lists the settings of the repository containing `root` (its config with includes followed, and the configs
 * of its checked-out submodules, which `git status` and `git diff` also read) that name a program a read
 * command may run. Never throws for a repository problem: it is reported in `problem`, and reads then `ask`.
 */
export async function inspectRepository(root: string, options: InspectOptions = {}): Promise<RepositoryFacts> {
  const runner = options.runner ?? new GitRunner();
  try {
    const paths = await discoverRepository(runner, root, options.trustRepository === true);
    const settings: ExecutableSetting[] = [];
    const seen = new Set<string>([paths.gitDir]);
    const visit = async (gitDir: string, workTree: string, label: string | undefined, depth: number): Promise<void> => {
      const location: GitLocation = { gitDir, workTree, cwd: workTree, filterDrivers: [] };
      const entries = await listConfig(runner, location);
      const partialClone = isPartialClone(entries);
      for (const entry of entries) {
        const what = executableConfig(entry.key);
        if (what === undefined || settingDisabled(entry.key, entry.value)) continue;
        const relevant = READ_RELEVANT_CONFIG.some((p) => p.test(entry.key)) || (partialClone && LAZY_FETCH_CONFIG.some((p) => p.test(entry.key)));
        if (!relevant) continue;
        settings.push({ key: entry.key, value: entry.value, scope: label === undefined ? entry.scope : `submodule ${label}`, what });
      }
      for (const path of await gitlinks(runner, location)) {
        const subTree = join(workTree, path);
        const subGitDir = await dotGitTarget(subTree);
        if (subGitDir === undefined || seen.has(subGitDir)) continue;
        seen.add(subGitDir);
        if (depth >= MAX_SUBMODULE_DEPTH) throw new GitctxError("unsafe_repository", `submodules are nested more than ${MAX_SUBMODULE_DEPTH} deep`);
        await visit(subGitDir, subTree, label === undefined ? path : `${label}/${path}`, depth + 1);
      }
    };
    await visit(paths.gitDir, paths.topLevel, undefined, 0);
    return { root: paths.root, executableSettings: settings };
  } catch (error) {
    if (error instanceof GitctxError) return { root, executableSettings: [], problem: error.message };
    throw error;
  }
}

interface ConfigEntry {
  scope: string;
  key: string;
  value: string;
}

/** `git config --list --show-scope -z`: `scope NUL key LF value NUL`, without the runner's own `-c` settings. */
async function listConfig(runner: GitRunner, location: GitLocation): Promise<ConfigEntry[]> {
  const result = await runChecked(runner, location, "config", ["--list", "--show-scope", "-z"], {});
  if (result.exitCode !== 0) {
    throw new GitctxError("git_failed", `git could not read the repository's config: ${firstLine(result.stderr)}`);
  }
  const fields = result.stdout.split("\0");
  const entries: ConfigEntry[] = [];
  for (let i = 0; i + 1 < fields.length; i += 2) {
    const scope = fields[i]!;
    const record = fields[i + 1]!;
    if (scope === "command") continue;
    const lf = record.indexOf("\n");
    const key = (lf === -1 ? record : record.slice(0, lf)).toLowerCase();
    entries.push({ scope, key, value: lf === -1 ? "true" : record.slice(lf + 1) });
  }
  return entries;
}

async function gitlinks(runner: GitRunner, location: GitLocation): Promise<string[]> {
  const result = await runChecked(runner, location, "ls-files", ["--stage", "-z"], {});
  if (result.exitCode !== 0) return [];
  const paths: string[] = [];
  for (const record of result.stdout.split("\0")) {
    if (!record.startsWith("160000 ")) continue;
    const tab = record.indexOf("\t");
    if (tab !== -1) paths.push(record.slice(tab + 1));
  }
  return paths;
}

export interface RepositoryClassifyOptions extends Omit<ClassifyOptions, "repository">, InspectOptions {
  /** The directory the command line runs in; the repository containing it is inspected. */
  root: string;
}

/**
 * `classifyCommand` plus the repository check: a read command is `allow` only when the repository's config
 * (includes followed, submodules included) names no program a read could run. The repository is inspected
 * only when the command line has a read that would otherwise be allowed.
 */
export async function classifyCommandInRepository(commandLine: string, options: RepositoryClassifyOptions): Promise<Classification> {
  const base: ClassifyOptions = options.ignoreNonGit === undefined ? {} : { ignoreNonGit: options.ignoreNonGit };
  const pure = classifyCommand(commandLine, base);
  if (!pure.invocations.some((inv) => inv.read && inv.verdict === "allow")) return pure;
  const inspect: InspectOptions = {};
  if (options.runner !== undefined) inspect.runner = options.runner;
  if (options.trustRepository !== undefined) inspect.trustRepository = options.trustRepository;
  const repository = await inspectRepository(options.root, inspect);
  return classifyCommand(commandLine, { ...base, repository });
}

/**
 * An allowed read command (`["git", "log", "-n", "5"]` or without the leading `git`) rewritten to run through
 * gitctx's hardened invocation in the repository at `location`: the hardening arguments of DESIGN.md before and
 * after the subcommand, the command's own pathspec and namespace options kept, its pager and `-c` options
 * dropped. Run the result with gitctx's hardened environment (as `GitRunner` does), not the caller's.
 * Throws `invalid_input` for anything `classifyCommand` does not allow.
 */
export function hardenedArgv(argv: readonly string[], location: { gitDir: string; workTree?: string }): string[] {
  const words = argv[0] === "git" || argv[0]?.endsWith("/git") === true ? argv.slice(1) : [...argv];
  const classified = classifyGitArgs(words);
  if (classified.verdict !== "allow" || !classified.read || classified.rest.length === 0) {
    const why = classified.verdict === "allow" ? "it is not a read command of the allowlist" : classified.reasons.join("; ");
    throw new GitctxError("invalid_input", `git ${words.join(" ")} cannot be hardened: ${why}.`, "Only commands that classifyCommand allows can be rewritten.");
  }
  const kept = classified.globals.filter((g) => g.keep).flatMap((g) => g.tokens);
  const [sub, ...rest] = classified.rest as [string, ...string[]];
  const out = [...globalArgs(location.gitDir, location.workTree), ...kept, sub];
  // Compound read commands take the hardening of the command they run: `stash show` is `show`, and so on.
  if (sub === "stash" && (rest[0] === "show" || rest[0] === "list")) {
    out.push(rest[0]!, ...subcommandArgs(rest[0] === "show" ? "show" : "log"), ...rest.slice(1));
  } else if (sub === "reflog" && rest[0] === "show") {
    out.push("show", ...subcommandArgs("log"), ...rest.slice(1));
  } else if (sub === "reflog" && (rest[0] === undefined || rest[0].startsWith("-"))) {
    out.push("show", ...subcommandArgs("log"), ...rest);
  } else if (sub === "whatchanged") {
    out.push(...subcommandArgs("log"), ...rest);
  } else {
    out.push(...subcommandArgs(sub), ...rest);
  }
  return out;
}

/**
 * The repository half of the shell-git classifier (what `gitctx check --root` and the Claude Code hook ask):
 * the facts about a repository that decide whether a read command may run unasked, read exactly as the tools read
 * the repository. Discovery and the repository's checks (owner, layout, state files, alternates, includes: any
 * refusal becomes `problem`, and every read asks), then the one config scan (includes followed, checked-out
 * submodules included): every setting the classifier's key table knows and `settingDisabled` does not switch
 * off, path values resolved as git resolves them, the executable hooks, whether it is a partial clone, and
 * whether the user's own config rewrites URLs (then the remote URLs git prints are partly the user's config).
 */
import { constants } from "node:fs";
import { access, readdir, readFile, realpath, stat } from "node:fs/promises";
import { basename, dirname, join, resolve } from "node:path";
import { GitctxError } from "../errors.js";
import { GitCaches } from "../git/caches.js";
import { expandHome, joinAsGit } from "../git/config-scan.js";
import { discoverRepository, isInside, openWorkTree } from "../git/discover.js";
import { Repository } from "../git/repository.js";
import { GitRunner, type UserConfigEnvironment } from "../git/run.js";
import { userConfigFromEnvironment } from "../git/user-config.js";
import { classifyCommand, type Classification, type ClassifyOptions, type ExecutableSetting, type RepositoryFacts } from "../safety/classify.js";
import { configKeyRule, isPartialClone, lowerKey, settingDisabled } from "../safety/config-keys.js";

export interface InspectOptions {
  /** Per git process, in milliseconds. Default 60 000. */
  timeoutMs?: number;
  /** Inspect a repository owned by another user (git itself would refuse to read it). */
  trustRepository?: boolean;
  /** Where the user's own config is, for the URL rewrites it makes. Default: this process's environment. */
  userConfig?: UserConfigEnvironment;
}

/**
 * The facts about the repository containing `root`. Never throws for a repository problem: it is reported in
 * `problem`, and reads then `ask`.
 */
export async function inspectRepository(root: string, options: InspectOptions = {}): Promise<RepositoryFacts> {
  const trust = options.trustRepository === true;
  const runner = new GitRunner(options.timeoutMs === undefined ? {} : { timeoutMs: options.timeoutMs });
  const caches = new GitCaches(runner);
  try {
    const paths = await discoverRepository(root, trust);
    const userConfig = options.userConfig ?? userConfigFromEnvironment();
    const repo = await Repository.open(runner, caches, paths, { trustRepository: trust, userConfig });
    let userDrivers: ExecutableSetting[];
    try {
      userDrivers = await selectedUserDrivers(repo);
    } finally {
      await repo.dispose();
    }
    // The last value of a key in each scope is the one git uses there.
    const last = new Map<string, { key: string; value: string; scope: string }>();
    for (const setting of repo.settings) last.set(`${setting.scope}\0${lowerKey(setting.key)}`, { ...setting, key: lowerKey(setting.key) });
    const settings: ExecutableSetting[] = [];
    for (const { key, value, scope } of last.values()) {
      const rule = configKeyRule(key);
      if (rule === undefined || settingDisabled(key, value, "repository")) continue;
      const setting: ExecutableSetting = { key, value, scope, what: rule.what };
      if (rule.kind === "path") {
        // core.worktree and includes (of .git/config) are relative to the git directory, the rest to the work tree.
        const submodule = scope.startsWith("submodule ") ? join(paths.topLevel, scope.slice("submodule ".length)) : undefined;
        const workTree = submodule ?? paths.topLevel;
        const gitDir = submodule === undefined ? paths.gitDir : ((await openWorkTree(submodule))?.gitDir ?? join(submodule, ".git"));
        const base = key === "core.worktree" || /^include(if\..+)?\.path$/.test(key) ? gitDir : workTree;
        setting.inside = judgedAlike(key) && (await inside(value, base, [workTree, gitDir, paths.commonDir]));
      }
      settings.push(setting);
    }
    settings.push(...userDrivers);
    const local = [...last.values()].filter((s) => s.scope === "local" || s.scope === "worktree");
    // The repository's own setting, else the user's: a relative one (`.githooks`) names a directory of the work
    // tree, whose hooks the repository ships. `~/` is the home of the user whose git runs them.
    const hooksPath = local.filter((s) => s.key === "core.hookspath").at(-1)?.value ?? repo.userHooksPath;
    const hooksDir = (path: string | undefined): string | undefined => (path === undefined ? undefined : expandHome(path, userConfig.HOME));
    // A read that recurses into a submodule runs git there, which writes the submodule's index: its own hooks run.
    const submoduleHooks: Record<string, string[]> = {};
    for (const sub of repo.submodules) {
      const subHooksPath = last.get(`submodule ${sub.label}\0core.hookspath`)?.value ?? repo.userHooksPath;
      submoduleHooks[sub.label] = await hooks(sub.commonDir, sub.workTree, hooksDir(subHooksPath));
    }
    return {
      root: paths.root,
      topLevel: paths.topLevel,
      executableSettings: settings,
      hooks: await hooks(paths.commonDir, paths.topLevel, hooksDir(hooksPath)),
      submoduleHooks,
      partialClone: isPartialClone([...last.values()]),
      userUrlRewrites: repo.userUrlRewrites.length > 0,
      // The scan reads every checked-out submodule or fails (then `problem`): none is left unscanned.
      unscannedSubmodules: [],
      layoutProblems: [],
      stateProblems: [],
    };
  } catch (error) {
    if (error instanceof GitctxError) return { root, executableSettings: [], problem: error.message };
    throw error;
  } finally {
    caches.invalidate("privateIndex");
    runner.close();
  }
}

/**
 * Whether the scan judged an include's condition as the shell's git will. The scan runs with gitctx's private,
 * empty HOME and without the user's config, so a condition that reads either (`gitdir:~/…`, `gitdir/i:~/…`, and
 * `hasconfig:remote.*.url:`, which sees the user's remotes too) may be false in the scan, which then never reads
 * the included file, and true for the command the hook lets run. Such an include counts as leading outside.
 */
function judgedAlike(key: string): boolean {
  const condition = /^includeif\.(.+)\.path$/.exec(key)?.[1];
  return condition === undefined || !/^(gitdir(\/i)?:~|hasconfig:)/.test(condition);
}

/**
 * The user's own driver programs (filter, diff and merge drivers of the global or system config) that the
 * repository's attributes select: the user's git runs them for the files the repository gives them (a hostile
 * `* filter=lfs` runs git-lfs on every stat-dirty file of git status). Selected means named as `filter=`,
 * `diff=` or `merge=` in an attributes file git reads here: every `.gitattributes` of the index and the work tree
 * (tracked or untracked; one the repository's own ignore rules hide is not seen), `info/attributes`, and the
 * files core.attributesFile names. Where that cannot be told (the
 * listing fails, submodules with attributes of their own, attr.tree), every driver counts.
 */
async function selectedUserDrivers(repo: Repository): Promise<ExecutableSetting[]> {
  const drivers = repo.userDrivers.map(({ key, value, scope }): ExecutableSetting => ({ key, value, scope, what: configKeyRule(key)?.what ?? "" }));
  if (drivers.length === 0) return [];
  const all = repo.submodules.length > 0 || repo.settings.some((s) => s.key === "attr.tree");
  if (all) return drivers;
  const top = repo.paths.topLevel;
  const files = [join(repo.paths.commonDir, "info", "attributes")];
  try {
    // Tracked and untracked (gitctx's git takes pathspecs literally, so the names are filtered here).
    const listed = await repo.git("ls-files", ["-z", "--cached", "--others", "--exclude-standard"]);
    for (const path of new Set(listed.stdout.split("\0")))
      if (path === ".gitattributes" || path.endsWith("/.gitattributes")) files.push(join(top, path));
  } catch {
    return drivers;
  }
  const attributesFiles = [
    ...repo.settings.filter((s) => s.key === "core.attributesfile" && (s.scope === "local" || s.scope === "worktree")).map((s) => s.value),
    ...repo.carried.filter(([key]) => key === "core.attributesfile").map(([, value]) => value),
  ];
  for (const file of attributesFiles) files.push(joinAsGit(top, file));
  const texts = await Promise.all(files.map((file) => readFile(file, "utf8").catch(() => "")));
  const named = (driver: string): boolean => {
    const name = /^(?:filter|diff|merge)\.(.+)\.[^.]+$/.exec(driver)?.[1] ?? "";
    const selects = new RegExp(`(?:^|\\s)[-!]?(?:filter|diff|merge)=${name.replace(/[.*+?^${}()|[\]\\]/g, "\\$&")}(?:\\s|$)`, "m");
    return texts.some((text) => selects.test(text));
  };
  return drivers.filter((d) => named(d.key));
}

/** Whether a path value, as git resolves it (`~`, relative to `base`) and through symlinks, stays inside. */
async function inside(value: string, base: string, dirs: string[]): Promise<boolean> {
  if (value.startsWith("~")) return false;
  // Joined as text, as git joins it and the system then resolves it: a `..` after a symbolic link goes up from
  // where the link leads (`../lnk/../x` is not `x` at the top level when lnk leads elsewhere).
  const spelt = joinAsGit(base, value);
  const real = await realPrefix(spelt);
  return dirs.some((dir) => isInside(dir, real) && isInside(dir, resolve(spelt)));
}

/**
 * Where a path leads: its longest existing leading part resolved through its links, the rest appended. Missing,
 * git reads nothing there now, but it may be created later, and it would be created where the links lead.
 */
async function realPrefix(path: string): Promise<string> {
  const rest: string[] = [];
  for (let head = path; ; head = dirname(head)) {
    const real = await realpath(head).catch(() => undefined);
    if (real !== undefined) return resolve(real, ...rest);
    if (dirname(head) === head) return resolve(path);
    rest.unshift(basename(head));
  }
}

/** The executable hooks of the effective hooks directory (core.hooksPath, else `<commonDir>/hooks`). */
async function hooks(commonDir: string, workTree: string, hooksPath: string | undefined): Promise<string[]> {
  // Relative to the work tree's top, where git runs hooks, and joined as git joins it (see joinAsGit).
  const dir = hooksPath === undefined ? join(commonDir, "hooks") : joinAsGit(workTree, hooksPath);
  let names: string[];
  try {
    if (!(await stat(dir)).isDirectory()) return [];
    names = await readdir(dir);
  } catch {
    return [];
  }
  const executable = await Promise.all(
    names.map(async (name) => {
      try {
        if (!(await stat(`${dir}/${name}`)).isFile()) return false;
        await access(`${dir}/${name}`, constants.X_OK);
        return true;
      } catch {
        return false; // Not an executable file: git skips it.
      }
    }),
  );
  return names.filter((_, i) => executable[i] === true).sort();
}

export interface RepositoryClassifyOptions extends Omit<ClassifyOptions, "repository" | "cwd">, InspectOptions {
  /** The directory the command line runs in; the repository containing it is inspected. */
  root: string;
}

/**
 * `classifyCommand` plus the repository check: a read command is `allow` only when the repository gives it no
 * program to run and no file outside to read. The repository is inspected only when its facts can change the
 * answer (a line with a read that is not denied anyway).
 */
export async function classifyCommandInRepository(commandLine: string, options: RepositoryClassifyOptions): Promise<Classification> {
  const cwd = resolve(options.root);
  const base: ClassifyOptions = { cwd, ...(options.ignoreNonGit === undefined ? {} : { ignoreNonGit: options.ignoreNonGit }) };
  const pure = classifyCommand(commandLine, base);
  if (!pure.invocations.some((inv) => inv.read) || pure.verdict === "deny") return pure;
  const inspect: InspectOptions = {};
  if (options.timeoutMs !== undefined) inspect.timeoutMs = options.timeoutMs;
  if (options.trustRepository !== undefined) inspect.trustRepository = options.trustRepository;
  return classifyCommand(commandLine, { ...base, repository: await inspectRepository(cwd, inspect) });
}

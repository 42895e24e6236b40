/**
 * Interim producer of the classifier's `RepositoryFacts` for `gitctx check --root` and the Claude Code hook,
 * until src/guard/ produces them from the session's one config scan. It is also the reference for that
 * producer: discovery, then the config listing (includes followed) and the gitlinks of each repository at once,
 * recursing into checked-out submodules; every setting `configKeyRule` knows and `settingDisabled` does not
 * switch off, path values resolved against the work tree; the executable hooks; whether it is a partial clone.
 * A fact it cannot establish stays absent, and the classifier then asks.
 */
import { constants } from "node:fs";
import { access, lstat, readdir, readFile, realpath, stat } from "node:fs/promises";
import { isAbsolute, join, resolve } from "node:path";
import { GitctxError } from "../errors.js";
import { discoverRepository, dotGitTarget, isInside } from "../git/discover.js";
import { firstLine, runChecked } from "../git/failures.js";
import { GitRunner, type GitLocation } from "../git/run.js";
import type { ExecutableSetting, RepositoryFacts } from "../safety/classify.js";
import { configKeyRule, isPartialClone, lowerKey, settingDisabled } from "../safety/git-tables.js";

const MAX_SUBMODULE_DEPTH = 16;

interface ConfigEntry {
  scope: string;
  key: string;
  value: string | null;
}

export async function repositoryFacts(root: string, options: { trustRepository?: boolean } = {}): Promise<RepositoryFacts> {
  const runner = new GitRunner();
  try {
    const paths = await discoverRepository(runner, root, options.trustRepository === true);
    const facts: RepositoryFacts = { root: paths.root, topLevel: paths.topLevel, executableSettings: [], partialClone: false };
    const unscanned: string[] = [];
    const seen = new Set<string>([paths.gitDir]);
    const visit = async (gitDir: string, workTree: string, label: string | undefined, depth: number): Promise<void> => {
      const location: GitLocation = { gitDir, workTree, cwd: workTree, filterDrivers: [] };
      const [entries, links] = await Promise.all([listConfig(runner, location), gitlinks(runner, location)]);
      if (isPartialClone(entries.map((e) => ({ key: e.key, value: e.value ?? "true" })))) facts.partialClone = true;
      // The last value of a key is the one git uses.
      const last = new Map<string, ConfigEntry>();
      for (const entry of entries) last.set(lowerKey(entry.key), entry);
      for (const [key, entry] of last) {
        const rule = configKeyRule(key);
        if (rule === undefined || settingDisabled(key, entry.value, "repository")) continue;
        const setting: ExecutableSetting = { key, value: entry.value, scope: label === undefined ? entry.scope : `submodule ${label}`, what: rule.what };
        // core.worktree and includes (of .git/config) are relative to the git directory, the rest to the work tree.
        const base = key === "core.worktree" || /^include(if\..+)?\.path$/.test(key) ? gitDir : workTree;
        if (rule.kind === "path" && entry.value !== null) setting.inside = await inside(entry.value, base, workTree, gitDir);
        facts.executableSettings.push(setting);
      }
      if (label === undefined) facts.hooks = await hooks(gitDir, workTree, last.get("core.hookspath")?.value ?? undefined);
      for (const path of links) {
        const subTree = join(workTree, path);
        const subGitDir = await dotGitTarget(subTree);
        if (subGitDir === undefined || seen.has(subGitDir)) continue;
        seen.add(subGitDir);
        const subLabel = label === undefined ? path : `${label}/${path}`;
        if (depth >= MAX_SUBMODULE_DEPTH) {
          unscanned.push(subLabel);
          continue;
        }
        try {
          await visit(subGitDir, subTree, subLabel, depth + 1);
        } catch {
          unscanned.push(subLabel);
        }
      }
    };
    const layoutState = layoutAndState(paths.gitDir, paths.topLevel);
    await visit(paths.gitDir, paths.topLevel, undefined, 0);
    if (unscanned.length > 0) facts.unscannedSubmodules = unscanned;
    const { layout, state } = await layoutState;
    if (layout.length > 0) facts.layoutProblems = layout;
    if (state.length > 0) facts.stateProblems = state;
    return facts;
  } catch (error) {
    if (error instanceof GitctxError) return { root, executableSettings: [], problem: error.message };
    throw error;
  }
}

/** `git config --list --show-scope -z`: `scope NUL key LF value NUL`, without the runner's own `-c` settings. */
async function listConfig(runner: GitRunner, location: GitLocation): Promise<ConfigEntry[]> {
  const result = await runChecked(runner, location, "config", ["--list", "--show-scope", "-z"], {});
  if (result.exitCode !== 0) throw new GitctxError("git_failed", `git could not read the repository's config: ${firstLine(result.stderr)}`);
  const fields = result.stdout.split("\0");
  const entries: ConfigEntry[] = [];
  for (let i = 0; i + 1 < fields.length; i += 2) {
    const scope = fields[i]!;
    const record = fields[i + 1]!;
    // The runner's own `-c` settings are `command`; the user's global and system config are the user's own.
    if (scope === "command" || scope === "global" || scope === "system") continue;
    const lf = record.indexOf("\n");
    entries.push({ scope, key: lf === -1 ? record : record.slice(0, lf), value: lf === -1 ? null : record.slice(lf + 1) });
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

/** Whether a path value, as git resolves it (`~`, relative to `base`) and through symlinks, stays inside. */
async function inside(value: string, base: string, workTree: string, gitDir: string): Promise<boolean> {
  if (value.startsWith("~")) return false;
  const lexical = isAbsolute(value) ? value : resolve(base, value);
  let real: string;
  try {
    real = await realpath(lexical);
  } catch {
    // Missing: git reads nothing there now, but it may be created later; judge the lexical path.
    real = lexical;
  }
  return [workTree, gitDir].some((dir) => isInside(dir, real) && isInside(dir, lexical));
}

/** State files git reads (and status prints from) that must be the repository's own files, not links elsewhere. */
const STATE_FILES = [
  "HEAD", "ORIG_HEAD", "FETCH_HEAD", "MERGE_HEAD", "MERGE_MSG", "MERGE_MODE", "SQUASH_MSG", "CHERRY_PICK_HEAD", "REVERT_HEAD",
  "BISECT_LOG", "index", "packed-refs", "config", "config.worktree", "info/exclude", "info/attributes", "info/grafts", "shallow",
  "rebase-merge", "rebase-apply", "sequencer", "commondir", "gitdir",
];

/**
 * Layout: objects borrowed from another repository (objects/info/alternates) are read from outside. State: a
 * state file that is a symlink makes git read (and `status` print lines of) any file.
 */
async function layoutAndState(gitDir: string, workTree: string): Promise<{ layout: string[]; state: string[] }> {
  const layout: string[] = [];
  const state: string[] = [];
  const commonDir = await readFile(join(gitDir, "commondir"), "utf8").then(
    (text) => resolve(gitDir, text.trim()),
    () => gitDir,
  );
  const alternates = await readFile(join(commonDir, "objects", "info", "alternates"), "utf8").catch(() => "");
  for (const line of alternates.split("\n").map((l) => l.trim()).filter((l) => l !== "" && !l.startsWith("#"))) {
    const target = resolve(join(commonDir, "objects"), line);
    if (!isInside(commonDir, target) && !isInside(workTree, target)) layout.push(`objects/info/alternates borrows objects from ${line}, outside the repository`);
  }
  const checks = [...new Set([gitDir, commonDir])].flatMap((dir) => STATE_FILES.map((name) => ({ name, path: join(dir, name) })));
  const linked = await Promise.all(checks.map(({ path }) => lstat(path).then((info) => info.isSymbolicLink(), () => false)));
  checks.forEach(({ name }, i) => {
    if (linked[i] === true && !state.includes(`${name} is a symbolic link`)) state.push(`${name} is a symbolic link`);
  });
  return { layout, state };
}

/** The executable hooks of the effective hooks directory (core.hooksPath, else `<commonDir>/hooks`). */
async function hooks(gitDir: string, workTree: string, hooksPath: string | undefined): Promise<string[]> {
  const commonDir = await readFile(join(gitDir, "commondir"), "utf8").then(
    (text) => resolve(gitDir, text.trim()),
    () => gitDir,
  );
  const dir = hooksPath === undefined ? join(commonDir, "hooks") : isAbsolute(hooksPath) ? hooksPath : resolve(workTree, hooksPath);
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
        if (!(await stat(join(dir, name))).isFile()) return false;
        await access(join(dir, name), constants.X_OK);
        return true;
      } catch {
        return false; // Not an executable file: git skips it.
      }
    }),
  );
  return names.filter((_, i) => executable[i] === true).sort();
}

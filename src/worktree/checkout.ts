/**
 * The checkout of a new worktree runs with every filter, hook and fsmonitor of the repository neutralised. Where
 * that makes it differ from what the user's own `git worktree add` would have made, this says how, with counts
 * and the exact command the user can run themselves: files left unfiltered (LFS pointers among them), a
 * `post-checkout` hook that did not run, submodules. Submodules are checked out from the repository's own
 * `.git/modules` (the `file` transport only: never the network), or reported left empty.
 */
import { constants } from "node:fs";
import { access, lstat } from "node:fs/promises";
import { isAbsolute, join } from "node:path";
import { joinAsGit } from "../git/config-scan.js";
import { discoverRepository, isGitDirectory } from "../git/discover.js";
import { firstLine, gitFailure } from "../git/failures.js";
import { LFS_DRIVER } from "../git/lfs.js";
import { parseGitmodules, parseStagedEntries } from "../git/parse/snapshot.js";
import { readRegularFile } from "../git/read-file.js";
import type { Repository } from "../git/repository.js";
import { lstatQuietly } from "../git/stat-quietly.js";

/** Files checked out without a filter the repository's config defines. */
export interface FilterReport {
  driver: string;
  files: number;
  /** Of those, files that are Git LFS pointers (the content the filter would have fetched is not there). */
  lfsPointers: number;
  /** What the user can run to get the filtered content. */
  command: string;
}

export interface SkippedHook {
  hook: "post-checkout";
  /** Where the hook is. */
  path: string;
  command: string;
}

export interface SubmoduleCheckout {
  name: string;
  path: string;
  state: "checked-out" | "left-empty";
  /** Why it was left empty. */
  reason?: string;
  /** What the user can run to check it out themselves. */
  command?: string;
}

const LFS_POINTER = Buffer.from("version https://git-lfs.github.com/spec/v1");

/**
 * The least time a git process gets that checks out, checks or deletes a whole worktree, whatever the session's
 * own limit (60 s by default, meant for reads): 100,000 files take their time on a busy machine.
 */
export const CHECKOUT_TIMEOUT_MS = 10 * 60 * 1000;

/** A string as one POSIX shell word. */
export function shellQuote(text: string): string {
  return /^[A-Za-z0-9_./:=@%+-]+$/.test(text) ? text : `'${text.replaceAll("'", `'\\''`)}'`;
}

/**
 * Drivers the repository's own config gives a smudge or process command: those a checkout would have run. And
 * `lfs` when the user's git reads the repository with git-lfs (its set-up is usually in the user's own config):
 * its checkout would have fetched the content gitctx leaves as pointers.
 */
export function checkoutFilters(repo: Repository): string[] {
  const drivers = new Set<string>();
  if (repo.lfs !== null) drivers.add(LFS_DRIVER);
  for (const setting of repo.settings) {
    if (setting.scope.startsWith("submodule")) continue;
    const match = /^filter\.(.+)\.(smudge|process)$/.exec(setting.key);
    if (match !== null && setting.value.trim() !== "") drivers.add(match[1]!);
  }
  return [...drivers];
}

/** Which checked-out files the neutralised filters would have changed, per driver. */
export async function reportFilters(worktree: Repository, drivers: readonly string[]): Promise<FilterReport[]> {
  if (drivers.length === 0) return [];
  const listed = await worktree.git("ls-files", ["-z"]);
  if (listed.exitCode !== 0) throw gitFailure("git ls-files", listed.stderr);
  if (listed.bytes.length === 0) return [];
  if (!(await attributesMayNameFilter(worktree, listed.stdout.split("\0")))) return [];
  const attrs = await worktree.git("check-attr", ["--stdin", "-z", "filter"], { input: listed.bytes });
  if (attrs.exitCode !== 0) throw gitFailure("git check-attr", attrs.stderr);
  const fields = attrs.bytes.toString("utf8").split("\0");
  const byDriver = new Map<string, string[]>();
  for (let i = 0; i + 2 < fields.length; i += 3) {
    const value = fields[i + 2]!;
    if (!drivers.includes(value)) continue;
    const list = byDriver.get(value) ?? [];
    list.push(fields[i]!);
    byDriver.set(value, list);
  }
  const top = worktree.paths.topLevel;
  const reports: FilterReport[] = [];
  for (const [driver, paths] of byDriver) {
    let lfsPointers = 0;
    for (const path of paths) {
      const head = await readRegularFile(join(top, path), LFS_POINTER.length);
      if (head?.equals(LFS_POINTER) === true) lfsPointers++;
    }
    const command =
      driver === "lfs" ? `cd ${shellQuote(top)} && git lfs pull` : `cd ${shellQuote(top)} && git rm -r -q --cached -- . && git reset -q --hard`;
    reports.push({ driver, files: paths.length, lfsPointers, command });
  }
  return reports;
}

/** The most of one attributes file read to look for the word "filter"; a larger one is taken to name one. */
const ATTRIBUTES_READ_BYTES = 1024 * 1024;

/**
 * Whether an attributes file the worktree's git reads could give a path a filter: the tree's `.gitattributes`
 * files, the repository's `info/attributes`, and the attributes file the config names (git's system file is not
 * read: gitctx's git sets GIT_ATTR_NOSYSTEM). Only a file with the word "filter" in it can (a macro that sets a
 * filter says so too), so without one no path needs asking about, which spares a checkout that git-lfs's usual
 * set-up in the user's config would otherwise report on a git process. A file that cannot be read as a regular
 * file counts as naming one, and so does an attributes file the repository's own config names.
 */
async function attributesMayNameFilter(worktree: Repository, listed: readonly string[]): Promise<boolean> {
  const mentions = async (path: string, missingIsFine: boolean): Promise<boolean> => {
    if (missingIsFine && lstatQuietly(path) === undefined) return false;
    const bytes = await readRegularFile(path, ATTRIBUTES_READ_BYTES);
    return bytes === undefined || bytes.length === ATTRIBUTES_READ_BYTES || bytes.includes("filter");
  };
  if (worktree.settings.some((setting) => setting.key === "core.attributesfile")) return true;
  const userFile = worktree.carried.find(([key]) => key === "core.attributesfile")?.[1];
  if (userFile !== undefined && (await mentions(userFile, true))) return true;
  if (await mentions(join(worktree.paths.commonDir, "info", "attributes"), true)) return true;
  const top = worktree.paths.topLevel;
  for (const path of listed) {
    // Listed but not checked out (a sparse checkout): git reads it from the index, which this does not.
    if ((path === ".gitattributes" || path.endsWith("/.gitattributes")) && (await mentions(join(top, path), false))) return true;
  }
  return false;
}

export function describeFilter(report: FilterReport): string {
  const files = `${report.files} file${report.files === 1 ? "" : "s"}`;
  const pointers = report.lfsPointers === 0 ? "" : `, ${report.lfsPointers} of them LFS pointer files (their content was not fetched)`;
  return `Checked out ${files} without the repository's filter "${report.driver}" (gitctx runs no filter)${pointers}. To apply it yourself: ${report.command}`;
}

/** The `post-checkout` hook the user's own git would have run in the new worktree, if the repository has one. */
export async function skippedPostCheckout(repo: Repository, worktree: string, head: string): Promise<SkippedHook | undefined> {
  const configured = repo.settings.filter((setting) => setting.key === "core.hookspath" && !setting.scope.startsWith("submodule")).at(-1)?.value;
  let dir: string;
  if (configured === undefined || configured === "") dir = join(repo.paths.commonDir, "hooks");
  else if (configured.startsWith("~"))
    return undefined; // Someone's home: not this repository's to report.
  else dir = joinAsGit(worktree, configured); // git runs hooks from the worktree's top
  const path = `${dir}/post-checkout`;
  const executable = await access(path, constants.X_OK).then(
    () => true,
    () => false,
  );
  if (!executable || (await lstat(path)).isDirectory()) return undefined;
  const zero = "0".repeat(head.length);
  return { hook: "post-checkout", path, command: `cd ${shellQuote(worktree)} && git hook run post-checkout -- ${zero} ${head} 1` };
}

export function describeHook(hook: SkippedHook): string {
  return `Did not run the repository's post-checkout hook (${hook.path}): gitctx runs no hook. To run it yourself: ${hook.command}`;
}

/**
 * Checks out each submodule of the new worktree from the main checkout's `.git/modules/<name>`: a local clone
 * (the `file` transport is allowed for that one process, nothing else), then its `origin` set back to the URL the
 * main checkout's copy has. One without a local copy, or whose commit the copy lacks, is left empty and said so.
 */
export async function checkoutSubmodules(worktree: Repository, commonDir: string): Promise<SubmoduleCheckout[]> {
  const top = worktree.paths.topLevel;
  if (lstatQuietly(join(top, ".gitmodules"))?.isFile() !== true) return [];
  const config = await worktree.git("config", ["-z", "--file", ".gitmodules", "--get-regexp", "^submodule\\."]);
  if (config.exitCode === 1) return [];
  if (config.exitCode !== 0) throw gitFailure("git config --file .gitmodules", config.stderr);
  const entries = parseGitmodules(config.stdout);
  const modules = entries.filter(
    (module): module is typeof module & { path: string } =>
      module.path !== null && module.path !== "" && !isAbsolute(module.path) && !module.path.split("/").includes(".."),
  );
  if (modules.length === 0) return [];
  // Every submodule name git could act on, from .gitmodules and the repository's config (submodule.<name>.*).
  const names = new Set(entries.map((entry) => entry.name));
  for (const setting of worktree.settings) {
    const name = /^submodule\.(.+)\.[^.]+$/i.exec(setting.key)?.[1];
    if (name !== undefined) names.add(name);
  }
  const staged = await worktree.git("ls-files", ["-s", "-z", "--", ...modules.map((module) => module.path)]);
  if (staged.exitCode !== 0) throw gitFailure("git ls-files -s", staged.stderr);
  const gitlinks = new Set(
    parseStagedEntries(staged.stdout)
      .filter((entry) => entry.mode === "160000")
      .map((entry) => entry.path),
  );

  const results: SubmoduleCheckout[] = [];
  const done = new Set<string>();
  for (const module of modules) {
    if (!gitlinks.has(module.path) || done.has(module.path)) continue;
    done.add(module.path);
    const command = `cd ${shellQuote(top)} && git submodule update --init -- ${shellQuote(module.path)}`;
    const leftEmpty = (reason: string): SubmoduleCheckout => ({ name: module.name, path: module.path, state: "left-empty", reason, command });
    const local = join(commonDir, "modules", module.name);
    // git finds a submodule by its path, and takes the last .gitmodules entry that names it: with two, the one
    // git takes may not be the one pointed at the local copy below, and its URL and update mode could lead anywhere.
    const claims = entries.filter((entry) => entry.path === module.path).map((entry) => entry.name);
    if (claims.length > 1) {
      results.push(
        leftEmpty(
          `more than one entry of .gitmodules names this path (${claims.join(", ")}), so git could check out another than the one gitctx checked`,
        ),
      );
      continue;
    }
    if (module.name.split("/").includes("..") || !(await isGitDirectory(local).catch(() => false))) {
      results.push(leftEmpty("the main checkout has no copy of it in .git/modules, and gitctx never fetches"));
      continue;
    }
    const update = await worktree.git("submodule", ["update", "--init", "--no-fetch", "--", module.path], {
      config: [
        [`submodule.${module.name}.url`, local],
        // `update = !command` in the config would run a program; any other name git might resolve does nothing.
        [`submodule.${module.name}.update`, "checkout"],
        ...[...names].filter((name) => name !== module.name).map((name) => [`submodule.${name}.update`, "none"] as const),
      ],
      allowFileTransport: true,
      minTimeoutMs: CHECKOUT_TIMEOUT_MS,
    });
    if (update.exitCode !== 0) {
      results.push(leftEmpty(`checking it out from ${local} failed (${firstLine(update.stderr)})`));
      continue;
    }
    // The clone's origin is the local copy; give it the URL the main checkout's copy fetches from.
    const origin = await worktree.git("config", ["--file", join(local, "config"), "--get", "remote.origin.url"]);
    const url = origin.exitCode === 0 ? origin.stdout.replace(/\n$/, "") : "";
    if (url !== "") {
      const paths = await discoverRepository(join(top, module.path), worktree.trustRepository);
      const sub = await worktree.openOther(paths);
      try {
        await sub.git("config", ["remote.origin.url", url]);
      } finally {
        await sub.dispose();
      }
    }
    results.push({ name: module.name, path: module.path, state: "checked-out" });
  }
  return results;
}

export function describeSubmodule(result: SubmoduleCheckout): string {
  return result.state === "checked-out"
    ? `Checked out submodule ${result.path} from the repository's own .git/modules (no network).`
    : `Left submodule ${result.path} empty: ${result.reason}. To check it out yourself (this may fetch): ${result.command}`;
}

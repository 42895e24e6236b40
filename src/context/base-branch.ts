/**
 * The base branch of the current branch: what a pull request from it would target. Found from local refs only,
 * never by asking a remote (no `git remote show`, no fetch), by the first rule that applies:
 *
 * 1. `upstream`: the upstream the current branch tracks (`branch.<name>.merge`), if its ref exists and is another
 *    branch (`git switch -c feature origin/main`); the branch's own copy on a remote (`origin/feature` after
 *    `git push -u`) is not a base: what a pull request targets is the default branch, and the own upstream is
 *    reported apart (`upstream`, with how far HEAD is from it);
 * 2. `remote-head`: the remote's default branch as last recorded in `refs/remotes/<remote>/HEAD`;
 * 3. `remote-branch`: the first of main, master, develop, trunk that exists on the remote;
 * 4. `local-branch`: the first of them that exists as a local branch (other than the current one).
 *
 * Remotes are tried in this order: the upstream's remote, `origin`, then the others in git's order.
 */
import { join } from "node:path";
import { GitctxError } from "../errors.js";
import { gitFailure } from "../git/failures.js";
import { parseLeftRightCount, parseRefs, parseTrack, REF_FORMAT, type RefRecord } from "../git/parse/snapshot.js";
import { readRegularFile } from "../git/read-file.js";
import type { Repository } from "../git/repository.js";

export const BASE_CANDIDATES = ["main", "master", "develop", "trunk"] as const;

/**
 * The revision `git_diff` accepts for the merge-base of HEAD with its base branch. git rejects `@{base}` itself
 * (`@{` cannot appear in a ref name, and `base` is no reflog date), so it can never shadow a real revision.
 */
export const BASE_REVISION = "@{base}";

export type BaseRule = "upstream" | "remote-head" | "remote-branch" | "local-branch";

export interface BaseBranch {
  /** Short name, e.g. `origin/main` or `main`. */
  name: string;
  /** Full ref name, e.g. `refs/remotes/origin/main`. */
  ref: string;
  /** The commit the base branch points at. */
  commit: string;
  /** Which rule found it. */
  rule: BaseRule;
  /** The rule in words, e.g. `upstream of feature` or `default branch of origin, per refs/remotes/origin/HEAD`. */
  reason: string;
  /** The merge-base of HEAD and the base branch; `null` without commits on HEAD or without common history. */
  mergeBase: string | null;
  /** Commits on HEAD not on the base branch, and the reverse; `null` without commits on HEAD. */
  ahead: number | null;
  behind: number | null;
  /** The current branch's own upstream when it is not the base (e.g. after `git push -u`); else `null`. */
  upstream: OwnUpstream | null;
}

/** The branch's own copy on a remote, and how the branch stands against it. */
export interface OwnUpstream {
  name: string;
  ref: string;
  /** Commits of the branch not pushed yet, and commits on the remote copy not in the branch; `null` when gone. */
  ahead: number | null;
  behind: number | null;
  /** The upstream is configured but its ref no longer exists (deleted on the remote, then fetched with prune). */
  gone: boolean;
}

/** The current branch, as `git symbolic-ref HEAD` would tell it. */
export interface CurrentBranch {
  /** Short name (`feature/x`); `null` when HEAD is detached. */
  name: string | null;
  /** Full ref (`refs/heads/feature/x`); `null` when HEAD is detached. */
  ref: string | null;
  detached: boolean;
}

/**
 * Reads `HEAD` from the git directory: every snapshot and base lookup needs it first, and a file read costs
 * nothing next to starting git. Anything but the two plain forms (`ref: <name>`, an object id) is left to git.
 */
export async function readCurrentBranch(repo: Repository): Promise<CurrentBranch> {
  const text = (await readRegularFile(join(repo.paths.gitDir, "HEAD"), 4096))?.toString("utf8");
  const symbolic = text === undefined ? null : /^ref: (refs\/[^\0-\x20\x7f]+)\n?$/.exec(text);
  if (symbolic !== null) return branchOf(symbolic[1]!);
  if (text !== undefined && /^[0-9a-f]{40}(?:[0-9a-f]{24})?\n?$/.test(text)) return { name: null, ref: null, detached: true };
  const result = await repo.git("symbolic-ref", ["-q", "HEAD"]);
  if (result.exitCode === 1 && result.stdout === "") return { name: null, ref: null, detached: true };
  if (result.exitCode !== 0) throw gitFailure("git symbolic-ref HEAD", result.stderr);
  return branchOf(result.stdout.trim());
}

function branchOf(ref: string): CurrentBranch {
  return { name: ref.startsWith("refs/heads/") ? ref.slice("refs/heads/".length) : ref, ref, detached: false };
}

/**
 * Finds the base branch and how far HEAD is from it, or `null` when no rule finds one. `branch` lets a caller
 * share the current branch it reads anyway. One `for-each-ref` reads every candidate at once, and the current
 * branch's upstream with them: its `%(upstream)`, and the ref of that name on every remote, where an upstream
 * usually is; an upstream elsewhere costs one more read.
 */
export async function findBaseBranch(repo: Repository, inputs: { branch?: Promise<CurrentBranch> } = {}): Promise<BaseBranch | null> {
  const branch = await (inputs.branch ?? readCurrentBranch(repo)).catch(() => undefined);
  const remoteNames = repo.remoteNames;
  const currentName = branch?.name ?? null;
  const wanted: string[] = [];
  if (branch?.ref != null) wanted.push(branch.ref);
  for (const remote of remoteNames) {
    wanted.push(`refs/remotes/${remote}/HEAD`, ...BASE_CANDIDATES.map((name) => `refs/remotes/${remote}/${name}`));
    if (currentName !== null) wanted.push(`refs/remotes/${remote}/${currentName}`);
  }
  wanted.push(...BASE_CANDIDATES.map((name) => `refs/heads/${name}`));
  const refs = await readRefs(repo, wanted);
  const upstreamRef = (branch?.ref != null ? refs.get(branch.ref)?.upstream : undefined) || undefined;
  if (upstreamRef !== undefined && !refs.has(upstreamRef)) {
    for (const [name, ref] of await readRefs(repo, [upstreamRef])) refs.set(name, ref);
  }
  const upstreamRemote = upstreamRef === undefined ? undefined : remoteOf(upstreamRef, remoteNames);
  const remotes = orderRemotes(remoteNames, upstreamRemote);

  const found = pickBase(refs, { upstreamRef, currentName, remotes });
  if (found === undefined) return null;
  const track = branch?.ref != null ? refs.get(branch.ref)?.track : undefined;
  const upstream = upstreamRef !== undefined && found.rule !== "upstream" ? ownUpstream(upstreamRef, track ?? "") : null;
  return { ...found, ...(await distance(repo, found.commit)), upstream };
}

/** The refs of exactly these names that exist (a pattern also matches refs below it: `refs/heads/main/x`). */
async function readRefs(repo: Repository, names: readonly string[]): Promise<Map<string, RefRecord>> {
  const listed = await repo.git("for-each-ref", [REF_FORMAT, "--", ...names]);
  if (listed.exitCode !== 0) throw gitFailure("git for-each-ref", listed.stderr);
  const exact = new Set(names);
  const refs = new Map<string, RefRecord>();
  for (const ref of parseRefs(listed.stdout)) if (exact.has(ref.refname)) refs.set(ref.refname, ref);
  return refs;
}

type Found = Pick<BaseBranch, "name" | "ref" | "commit" | "rule" | "reason">;

function pickBase(
  refs: ReadonlyMap<string, RefRecord>,
  context: { upstreamRef: string | undefined; currentName: string | null; remotes: readonly string[] },
): Found | undefined {
  const { upstreamRef, currentName, remotes } = context;
  const upstream = upstreamRef === undefined ? undefined : refs.get(upstreamRef);
  if (upstream !== undefined && !isOwnCopy(upstream.refname, currentName)) {
    return {
      name: shortName(upstream.refname),
      ref: upstream.refname,
      commit: upstream.objectname,
      rule: "upstream",
      reason: `upstream of ${currentName ?? "HEAD"}`,
    };
  }
  for (const remote of remotes) {
    const head = refs.get(`refs/remotes/${remote}/HEAD`);
    if (head !== undefined && head.symref !== "" && head.objectname !== "") {
      return {
        name: shortName(head.symref),
        ref: head.symref,
        commit: head.objectname,
        rule: "remote-head",
        reason: `default branch of ${remote}, per refs/remotes/${remote}/HEAD`,
      };
    }
  }
  for (const remote of remotes) {
    for (const name of BASE_CANDIDATES) {
      const ref = refs.get(`refs/remotes/${remote}/${name}`);
      if (ref !== undefined) {
        return {
          name: `${remote}/${name}`,
          ref: ref.refname,
          commit: ref.objectname,
          rule: "remote-branch",
          reason: `first of ${BASE_CANDIDATES.join(", ")} on ${remote}`,
        };
      }
    }
  }
  for (const name of BASE_CANDIDATES) {
    if (name === currentName) continue;
    const ref = refs.get(`refs/heads/${name}`);
    if (ref !== undefined) {
      return {
        name,
        ref: ref.refname,
        commit: ref.objectname,
        rule: "local-branch",
        reason: `first of ${BASE_CANDIDATES.join(", ")} among local branches`,
      };
    }
  }
  return undefined;
}

/** Whether an upstream is the current branch's own copy on a remote (the same branch name), not another branch. */
function isOwnCopy(upstreamRef: string, currentName: string | null): boolean {
  if (currentName === null) return false;
  return upstreamRef === `refs/heads/${currentName}` || (upstreamRef.startsWith("refs/remotes/") && upstreamRef.endsWith(`/${currentName}`));
}

function ownUpstream(ref: string, track: string): OwnUpstream {
  const parsed = parseTrack(track);
  return parsed === "gone"
    ? { name: shortName(ref), ref, ahead: null, behind: null, gone: true }
    : { name: shortName(ref), ref, ahead: parsed.ahead, behind: parsed.behind, gone: false };
}

/** The remote a remote-tracking ref belongs to: the longest remote name it starts with. */
function remoteOf(ref: string, remotes: readonly string[]): string | undefined {
  let best: string | undefined;
  for (const remote of remotes) {
    if (ref.startsWith(`refs/remotes/${remote}/`) && (best === undefined || remote.length > best.length)) best = remote;
  }
  return best;
}

function orderRemotes(remotes: readonly string[], upstreamRemote: string | undefined): string[] {
  const first = [upstreamRemote, "origin"].filter((name): name is string => name !== undefined && remotes.includes(name));
  return [...new Set([...first, ...remotes])];
}

function shortName(ref: string): string {
  for (const prefix of ["refs/remotes/", "refs/heads/"]) if (ref.startsWith(prefix)) return ref.slice(prefix.length);
  return ref;
}

/** Merge-base and ahead/behind counts of HEAD against `commit`; all `null` when HEAD has no commits yet. */
async function distance(repo: Repository, commit: string): Promise<Pick<BaseBranch, "mergeBase" | "ahead" | "behind">> {
  const [mergeBase, counts] = await Promise.all([
    repo.git("merge-base", ["--end-of-options", commit, "HEAD"]),
    repo.git("rev-list", ["--left-right", "--count", `${commit}...HEAD`, "--"]),
  ]);
  if (counts.exitCode !== 0) {
    const head = await repo.git("rev-parse", ["--verify", "-q", "HEAD^{commit}"]);
    if (head.exitCode !== 0) return { mergeBase: null, ahead: null, behind: null };
    throw gitFailure("git rev-list --count", counts.stderr);
  }
  const parsed = parseLeftRightCount(counts.stdout);
  if (parsed === undefined) throw gitFailure("git rev-list --count", `unexpected output: ${counts.stdout}`);
  // merge-base exits 1 without printing anything when the histories share no commit.
  if (mergeBase.exitCode !== 0 && !(mergeBase.exitCode === 1 && mergeBase.stdout === "")) {
    throw gitFailure("git merge-base", mergeBase.stderr);
  }
  return { mergeBase: mergeBase.exitCode === 0 ? mergeBase.stdout.trim() : null, ahead: parsed.right, behind: parsed.left };
}

/** The base branch with a merge-base, for diffs from it (`git_diff` with `@{base}`); a caller-fixable error otherwise. */
export async function requireBaseMergeBase(repo: Repository): Promise<BaseBranch & { mergeBase: string }> {
  const base = await findBaseBranch(repo);
  if (base === null) {
    throw new GitctxError(
      "bad_revision",
      `@{base}: no base branch found: the current branch has no upstream, no remote records a default branch (refs/remotes/<remote>/HEAD), and none of ${BASE_CANDIDATES.join(", ")} exists on a remote or locally.`,
      'Name the branch to compare with instead, e.g. commit="origin/main...HEAD" for the change since the branches diverged.',
    );
  }
  if (base.mergeBase === null) {
    const unborn = base.ahead === null;
    throw new GitctxError(
      "bad_revision",
      unborn
        ? `@{base}: HEAD has no commits yet, so it has no merge-base with the base branch ${base.name}.`
        : `@{base}: HEAD and its base branch ${base.name} (${base.reason}) share no history, so there is no merge-base.`,
      unborn ? "Commit first, or use staged=true to see what is staged." : `Compare the two snapshots directly with commit="${base.name}..HEAD".`,
    );
  }
  return base as BaseBranch & { mergeBase: string };
}

/**
 * The base branch of the current branch: what a pull request from it would target. Found from local refs only,
 * never by asking a remote (no `git remote show`, no fetch), by the first rule that applies:
 *
 * 1. `upstream`: the upstream the current branch tracks (`branch.<name>.merge`), if its ref exists;
 * 2. `remote-head`: the remote's default branch as last recorded in `refs/remotes/<remote>/HEAD`;
 * 3. `remote-branch`: the first of main, master, develop, trunk that exists on the remote;
 * 4. `local-branch`: the first of them that exists as a local branch (other than the current one).
 *
 * Remotes are tried in this order: the upstream's remote, `origin`, then the others in git's order.
 */
import { GitctxError } from "../errors.js";
import { gitFailure } from "../git/failures.js";
import { parseLeftRightCount, parseRefs, parseRemotes, REF_FORMAT, type RefRecord } from "../git/parse/snapshot.js";
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
}

/** The current branch as `git symbolic-ref` tells it. */
export interface CurrentBranch {
  /** Short name (`feature/x`); `null` when HEAD is detached. */
  name: string | null;
  /** Full ref (`refs/heads/feature/x`); `null` when HEAD is detached. */
  ref: string | null;
  detached: boolean;
}

export async function readCurrentBranch(repo: Repository): Promise<CurrentBranch> {
  const result = await repo.git("symbolic-ref", ["-q", "HEAD"]);
  if (result.exitCode === 1 && result.stdout === "") return { name: null, ref: null, detached: true };
  if (result.exitCode !== 0) throw gitFailure("git symbolic-ref HEAD", result.stderr);
  const ref = result.stdout.trim();
  return { name: ref.startsWith("refs/heads/") ? ref.slice("refs/heads/".length) : ref, ref, detached: false };
}

/** Remote names in git's order, from `git remote -v` (shared with the remotes part of the snapshot). */
export async function readRemoteNames(repo: Repository): Promise<string[]> {
  const result = await repo.git("remote", ["-v"]);
  if (result.exitCode !== 0) throw gitFailure("git remote -v", result.stderr);
  return parseRemotes(result.stdout).map((remote) => remote.name);
}

export interface BaseInputs {
  branch?: Promise<CurrentBranch>;
  remoteNames?: Promise<string[]>;
}

/**
 * Finds the base branch and how far HEAD is from it, or `null` when no rule finds one. `inputs` lets a caller
 * share the current branch and the remote names it reads anyway; anything missing is read here.
 */
export async function findBaseBranch(repo: Repository, inputs: BaseInputs = {}): Promise<BaseBranch | null> {
  const [branch, remoteNames, upstreamRef] = await Promise.all([
    (inputs.branch ?? readCurrentBranch(repo)).catch(() => undefined),
    (inputs.remoteNames ?? readRemoteNames(repo)).catch(() => [] as string[]),
    readUpstreamRef(repo),
  ]);
  const currentName = branch?.name ?? null;
  const upstreamRemote = upstreamRef === undefined ? undefined : remoteOf(upstreamRef, remoteNames);
  const remotes = orderRemotes(remoteNames, upstreamRemote);

  const wanted: string[] = [];
  if (upstreamRef !== undefined) wanted.push(upstreamRef);
  for (const remote of remotes) {
    wanted.push(`refs/remotes/${remote}/HEAD`, ...BASE_CANDIDATES.map((name) => `refs/remotes/${remote}/${name}`));
  }
  wanted.push(...BASE_CANDIDATES.map((name) => `refs/heads/${name}`));
  const listed = await repo.git("for-each-ref", [REF_FORMAT, "--", ...wanted]);
  if (listed.exitCode !== 0) throw gitFailure("git for-each-ref", listed.stderr);
  // Patterns also match refs below them (`refs/heads/main/x`): keep exact names only.
  const exact = new Set(wanted);
  const refs = new Map<string, RefRecord>();
  for (const ref of parseRefs(listed.stdout)) if (exact.has(ref.refname)) refs.set(ref.refname, ref);

  const found = pickBase(refs, { upstreamRef, currentName, remotes });
  if (found === undefined) return null;
  return { ...found, ...(await distance(repo, found.commit)) };
}

type Found = Pick<BaseBranch, "name" | "ref" | "commit" | "rule" | "reason">;

function pickBase(
  refs: ReadonlyMap<string, RefRecord>,
  context: { upstreamRef: string | undefined; currentName: string | null; remotes: readonly string[] },
): Found | undefined {
  const { upstreamRef, currentName, remotes } = context;
  const upstream = upstreamRef === undefined ? undefined : refs.get(upstreamRef);
  if (upstream !== undefined) {
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

/** The full ref of the current branch's upstream if it exists (`undefined` when detached, unset or gone). */
async function readUpstreamRef(repo: Repository): Promise<string | undefined> {
  const result = await repo.git("rev-parse", ["--verify", "-q", "--symbolic-full-name", "@{upstream}"]);
  const ref = result.stdout.trim();
  return result.exitCode === 0 && ref.startsWith("refs/") ? ref : undefined;
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
      unborn
        ? "Commit first, or use staged=true to see what is staged."
        : `Compare the two snapshots directly with commit="${base.name}..HEAD".`,
    );
  }
  return base as BaseBranch & { mergeBase: string };
}

/**
 * Parsers for the git commands behind the repository snapshot (`src/context/`). Pure: text in, typed data out.
 * Each pairs with the argv that asks git for machine-readable output, kept beside it as a constant.
 */

/** One commit as the snapshot shows it: enough to recognise it, nothing more. */
export interface CommitSummary {
  hash: string;
  shortHash: string;
  /** Author name. */
  author: string;
  /** Author date, strict ISO 8601 with the original time zone. */
  date: string;
  subject: string;
}

/** Pass as `--format=...` together with `-z` to `git log`; `mailmap` as in commitFormat (log.ts). */
export function commitSummaryFormat(mailmap: boolean): string {
  return `--format=${summaryFields(mailmap).join("%x00")}`;
}

const summaryFields = (mailmap: boolean): string[] => ["%H", "%h", mailmap ? "%aN" : "%an", "%aI", "%s"];

/** The NUL-terminated fields {@link commitSummaryFormat} prints per commit with `-z`. */
const SUMMARY_FIELD_COUNT = summaryFields(true).length;

export function parseCommitSummaries(output: string): CommitSummary[] {
  if (output === "") return [];
  const fields = output.replace(/\0$/, "").split("\0");
  const commits: CommitSummary[] = [];
  for (let i = 0; i + SUMMARY_FIELD_COUNT <= fields.length; i += SUMMARY_FIELD_COUNT) {
    const [hash, shortHash, author, date, subject] = fields.slice(i, i + SUMMARY_FIELD_COUNT);
    commits.push({ hash: hash!, shortHash: shortHash!, author: author!, date: date!, subject: subject! });
  }
  return commits;
}

/** A remote as `git remote -v` lists it, URLs as configured (redaction happens later). */
export interface RawRemote {
  name: string;
  fetchUrl: string | null;
  pushUrl: string | null;
}

/** `git remote -v`: `name<TAB>url (fetch|push)` per line, remotes in git's order. */
export function parseRemotes(output: string): RawRemote[] {
  const remotes = new Map<string, RawRemote>();
  for (const line of output.split("\n")) {
    const match = /^([^\t]+)\t(.*) \((fetch|push)\)$/.exec(line);
    if (match === null) continue;
    const [, name, url, kind] = match;
    let remote = remotes.get(name!);
    if (remote === undefined) {
      remote = { name: name!, fetchUrl: null, pushUrl: null };
      remotes.set(name!, remote);
    }
    // A remote may have several URLs; the first of each kind is the one git uses first.
    if (kind === "fetch") remote.fetchUrl ??= url!;
    else remote.pushUrl ??= url!;
  }
  return [...remotes.values()];
}

export interface StashEntry {
  /** `stash@{0}`, newest first. */
  ref: string;
  hash: string;
  /** The stash's reflog message, e.g. `WIP on main: 1a2b3c4 subject` or `On main: message`. */
  message: string;
}

/** Pass to `git log -g refs/stash` (what `git stash list` runs) together with `-z`. */
export const STASH_FORMAT = "--format=%gd%x00%H%x00%gs";

export function parseStashes(output: string): StashEntry[] {
  if (output === "") return [];
  const fields = output.replace(/\0$/, "").split("\0");
  const stashes: StashEntry[] = [];
  for (let i = 0; i + 3 <= fields.length; i += 3) {
    stashes.push({ ref: fields[i]!, hash: fields[i + 1]!, message: fields[i + 2]! });
  }
  return stashes;
}

export interface RawWorktree {
  path: string;
  /** `null` for a bare entry or an unborn branch. */
  head: string | null;
  /** Full ref name (`refs/heads/x`), `null` when detached or bare. */
  branch: string | null;
  detached: boolean;
  bare: boolean;
  locked: boolean;
  prunable: boolean;
}

/** `git worktree list --porcelain -z`: attributes NUL-terminated, an empty attribute ends each worktree. */
export function parseWorktrees(output: string): RawWorktree[] {
  const worktrees: RawWorktree[] = [];
  let current: RawWorktree | undefined;
  for (const field of output.split("\0")) {
    if (field === "") {
      if (current !== undefined) worktrees.push(current);
      current = undefined;
      continue;
    }
    const space = field.indexOf(" ");
    const key = space === -1 ? field : field.slice(0, space);
    const value = space === -1 ? "" : field.slice(space + 1);
    if (key === "worktree") {
      if (current !== undefined) worktrees.push(current);
      current = { path: value, head: null, branch: null, detached: false, bare: false, locked: false, prunable: false };
      continue;
    }
    if (current === undefined) continue;
    if (key === "HEAD") current.head = /^0+$/.test(value) ? null : value;
    else if (key === "branch") current.branch = value;
    else if (key === "detached") current.detached = true;
    else if (key === "bare") current.bare = true;
    else if (key === "locked") current.locked = true;
    else if (key === "prunable") current.prunable = true;
  }
  if (current !== undefined) worktrees.push(current);
  return worktrees;
}

/** `git ls-files -s -z` / `-u -z`: `<mode> <object> <stage>\t<path>` records. */
export interface IndexEntry {
  mode: string;
  object: string;
  stage: number;
  path: string;
}

export function parseStagedEntries(output: string): IndexEntry[] {
  const entries: IndexEntry[] = [];
  for (const record of output.split("\0")) {
    const match = /^(\d+) ([0-9a-f]+) (\d)\t([\s\S]*)$/.exec(record);
    if (match === null) continue;
    entries.push({ mode: match[1]!, object: match[2]!, stage: Number(match[3]), path: match[4]! });
  }
  return entries;
}

/** Paths with unmerged index entries, once each, in index order (`git ls-files -u -z`). */
export function parseUnmergedPaths(output: string): string[] {
  return [...new Set(parseStagedEntries(output).map((entry) => entry.path))];
}

export interface GitmodulesEntry {
  name: string;
  path: string | null;
  url: string | null;
}

/** `git config -z --file .gitmodules --get-regexp ^submodule\.`: `key\nvalue` records, NUL-terminated. */
export function parseGitmodules(output: string): GitmodulesEntry[] {
  const modules = new Map<string, GitmodulesEntry>();
  for (const record of output.split("\0")) {
    const newline = record.indexOf("\n");
    if (newline === -1) continue;
    const key = record.slice(0, newline);
    const value = record.slice(newline + 1);
    // The name sits between `submodule.` and the last dot; it may contain dots itself.
    const match = /^submodule\.(.+)\.([^.]+)$/.exec(key);
    if (match === null) continue;
    const [, name, variable] = match;
    let entry = modules.get(name!);
    if (entry === undefined) {
      entry = { name: name!, path: null, url: null };
      modules.set(name!, entry);
    }
    if (variable === "path") entry.path = value;
    else if (variable === "url") entry.url = value;
  }
  return [...modules.values()];
}

/** One ref as `git for-each-ref` reports it with {@link REF_FORMAT}. */
export interface RefRecord {
  refname: string;
  /** The configured upstream's full ref name (branches only), or `""`. */
  upstream: string;
  /** The target of a symbolic ref (e.g. `refs/remotes/origin/HEAD`), or `""`. */
  symref: string;
  /** The object the ref (or its target) points at. */
  objectname: string;
  /** How a branch stands against its upstream: `ahead 2, behind 1`, `gone`, or `""` when even (or none). */
  track: string;
}

/** Ref names cannot contain NUL or newline, so records are lines of NUL-separated fields. */
export const REF_FORMAT = "--format=%(refname)%00%(upstream)%00%(symref)%00%(objectname)%00%(upstream:track,nobracket)";

export function parseRefs(output: string): RefRecord[] {
  const refs: RefRecord[] = [];
  for (const line of output.split("\n")) {
    const fields = line.split("\0");
    if (fields.length !== 5) continue;
    const [refname, upstream, symref, objectname, track] = fields;
    refs.push({ refname: refname!, upstream: upstream!, symref: symref!, objectname: objectname!, track: track! });
  }
  return refs;
}

/** `%(upstream:track,nobracket)`: commits ahead of and behind the upstream, or `gone` when its ref is missing. */
export function parseTrack(track: string): { ahead: number; behind: number } | "gone" {
  if (track === "gone") return "gone";
  return { ahead: Number(/ahead (\d+)/.exec(track)?.[1] ?? 0), behind: Number(/behind (\d+)/.exec(track)?.[1] ?? 0) };
}

/** `git rev-list --left-right --count A...B`: commits only in A, then only in B. */
export function parseLeftRightCount(output: string): { left: number; right: number } | undefined {
  const match = /^(\d+)\s+(\d+)\s*$/.exec(output);
  return match === null ? undefined : { left: Number(match[1]), right: Number(match[2]) };
}

/**
 * The snapshot as a text block for a system prompt, fitted to a token budget counted with the o200k tokenizer.
 * Sections go in priority order; a long list is cut to what fits, and a section that does not fit at all is
 * left out. The text never exceeds the budget, and it says what it left out and which tool call gets it.
 */
import { relative, sep } from "node:path";
import { neutralisedWarning } from "../git/config-scan.js";
import { lfsNote } from "../git/lfs.js";
import { showPath, showValue } from "../text.js";
import { describeCounts, statusLine } from "./status-text.js";
import { BASE_REVISION, type BaseBranch, type OwnUpstream } from "./base-branch.js";
import type { Operation } from "./operation.js";
import { DEFAULT_STALE_LOCK_MS } from "../git/index-lock.js";
import { DEFAULT_STALE_DAYS } from "../worktree/list.js";
import { CONTEXT_SECTIONS, type ContextSection, type Part, type RepositorySnapshot } from "./snapshot.js";
import { loadTokenCounter, type TokenCounter } from "./tokens.js";

export const DEFAULT_CONTEXT_BUDGET = 2000;
/** Longer lines are cut: a pathological line (a 4 KB path) would cost tokens and tokenizer time for nothing. */
const MAX_LINE_CHARS = 400;

export interface RenderOptions {
  /** Most o200k tokens the text may have. Default 2,000. */
  budget?: number;
  /** Sections to render, among those the snapshot has (default: all of them). Order is always priority order. */
  sections?: readonly ContextSection[];
}

export interface OmittedSection {
  section: ContextSection;
  /** `true`: the section was left out entirely; `false`: only some of its lines were. */
  whole: boolean;
  /** The tool call that returns all of it, e.g. `git_log {"count":20,"oneline":true}`. */
  get: string;
}

export interface RenderedContext {
  text: string;
  /** o200k tokens in `text`; never more than `budget`. */
  tokens: number;
  budget: number;
  /** Sections shown, wholly or in part, in order. */
  shown: ContextSection[];
  omitted: OmittedSection[];
}

/** One section as lines: `head` and `tail` are shown whole or not at all; `items` can be cut from the end. */
interface Block {
  section: ContextSection;
  head: string[];
  items: string[];
  tail: string[];
  /** Items that exist but are not in `items` (the data was already capped); they count as "more". */
  unlisted: number;
  /** Advice shown after the section when there is room for all of it, dropped silently otherwise. */
  advice: string[];
  /** What the footer calls the section. */
  label: string;
  get: string;
}

const GET: Record<ContextSection, string> = {
  branch: "git_status {}",
  head: 'git_log {"count":1}',
  operation: "git_status {}",
  indexLock: 'git_context {"sections":["indexLock"]}',
  base: 'git_context {"sections":["base"]}',
  status: 'git_status {"untracked":"no"}',
  untracked: "git_status {}",
  commits: 'git_log {"count":20,"oneline":true}',
  stashes: 'git_context {"sections":["stashes"]}',
  remotes: 'git_context {"sections":["remotes"]}',
  worktrees: 'git_context {"sections":["worktrees"]}',
  submodules: 'git_context {"sections":["submodules"]}',
};

const LABEL: Record<ContextSection, string> = {
  branch: "branch",
  head: "HEAD commit",
  operation: "operation in progress",
  indexLock: "index.lock",
  base: "base branch",
  status: "changes",
  untracked: "untracked files",
  commits: "recent commits",
  stashes: "stashes",
  remotes: "remotes",
  worktrees: "worktrees",
  submodules: "submodules",
};

/** Renders a snapshot within `budget` tokens. Loads the tokenizer on first use. */
export async function renderSnapshot(snapshot: RepositorySnapshot, options: RenderOptions = {}): Promise<RenderedContext> {
  const budget = options.budget ?? DEFAULT_CONTEXT_BUDGET;
  if (!Number.isInteger(budget) || budget < 0) throw new RangeError(`budget must be a whole number of tokens, got ${budget}`);
  const count = await loadTokenCounter();
  const wanted = new Set(options.sections ?? snapshot.sections);
  // Sections picked by name say "none" rather than nothing.
  const explicit = options.sections !== undefined || snapshot.sections.length < CONTEXT_SECTIONS.length;
  const blocks = CONTEXT_SECTIONS.filter((section) => wanted.has(section) && snapshot[section] !== undefined)
    .map((section) => buildBlock(snapshot, section, explicit))
    .filter((block): block is Block => block !== undefined);
  const header = headerLines(snapshot);
  const estimate = lineEstimator(count);

  // The footer naming each omitted section with its tool call is the most useful; at small budgets a shorter
  // one can leave room for more. The short one is used only when it lets more sections in.
  const plans = (["full", "short"] as const)
    .map((style) => planWithin(blocks, header, budget, style, estimate, count))
    .filter((plan): plan is Plan & { tokens: number } => plan !== undefined);
  const best = plans.reduce<(Plan & { tokens: number }) | undefined>(
    (a, b) => (a === undefined || b.shown.length > a.shown.length ? b : a),
    undefined,
  );
  if (best !== undefined && (best.shown.length > 0 || blocks.length === 0)) {
    return { text: best.text, tokens: best.tokens, budget, shown: best.shown, omitted: best.omitted };
  }
  // Too small for even a list of what was left out.
  const omitted = blocks.map((block) => ({ section: block.section, whole: true, get: block.get }));
  for (const text of [
    `Repository context left out: ${budget} tokens is too small. Call git_context {"budget":${DEFAULT_CONTEXT_BUDGET}}.`,
    "Call git_context.",
    "",
  ]) {
    const tokens = count(text);
    if (tokens <= budget) return { text, tokens, budget, shown: [], omitted };
  }
  return { text: "", tokens: 0, budget, shown: [], omitted };
}

interface Plan {
  text: string;
  shown: ContextSection[];
  omitted: OmittedSection[];
  /** The blocks left out whole, for the footer. */
  left: Block[];
}

/**
 * The plan for one footer style whose exact token count is within the budget, or `undefined`. Estimates are
 * per line and close but not exact (tokens can merge across a newline), so the whole text is counted; when it
 * is over, the fit is redone with the overshoot taken off.
 */
function planWithin(
  blocks: readonly Block[],
  header: readonly string[],
  budget: number,
  style: "full" | "short",
  estimate: (line: string) => number,
  count: TokenCounter,
): (Plan & { tokens: number }) | undefined {
  let target = budget;
  for (let attempt = 0; attempt < 10 && target > 0; attempt++) {
    // Room for the footer is reserved by what the footer of the plan turns out to be; leaving more out only
    // makes it longer, so the reserve grows until it covers the footer (a handful of rounds at most).
    let reserve = 0;
    let plan = fit(blocks, header, target, budget, style, estimate);
    for (let round = 0; round < blocks.length + 1; round++) {
      const footer = footerLine(plan.left, budget, style);
      const needed = footer === undefined ? 0 : estimate(footer);
      if (needed <= reserve) break;
      reserve = needed;
      plan = fit(blocks, header, target - reserve, budget, style, estimate);
    }
    const tokens = count(plan.text);
    if (tokens <= budget) return { ...plan, tokens };
    target -= tokens - budget;
  }
  return undefined;
}

/** Places sections in priority order within `room` tokens (estimated), then appends the footer for what is left out. */
function fit(
  blocks: readonly Block[],
  header: readonly string[],
  room: number,
  budget: number,
  style: "full" | "short",
  estimate: (line: string) => number,
): Plan {
  const sum = (lines: readonly string[]): number => lines.reduce((total, line) => total + estimate(line), 0);
  let used = sum(header);
  const left: Block[] = [];
  const placed: Array<{ block: Block; kept: number; advice: boolean }> = [];
  const partial: OmittedSection[] = [];
  // Strict priority: once a section is cut or left out, every section after it is left out too, so whatever
  // the text shows, everything more important is shown as well.
  let closed = false;
  for (const block of blocks) {
    if (closed) {
      left.push(block);
      continue;
    }
    const free = room - used;
    const fixed = sum(block.head) + sum(block.tail);
    const total = block.items.length + block.unlisted;
    const moreCost = (shownItems: number): number => (total - shownItems > 0 ? estimate(moreLine(block, total - shownItems)) : 0);

    // The most items that fit (all of them, ideally), reading estimates only as far as the room goes. A
    // section cut to none of its items is left out whole; one without items is shown whole or not at all.
    let kept = -1;
    let cost = 0;
    let itemCost = 0;
    for (let k = 0; k <= block.items.length; k++) {
      if (k > 0) itemCost += estimate(block.items[k - 1]!);
      if (fixed + itemCost > free) break;
      const candidate = fixed + itemCost + moreCost(k);
      if (candidate <= free && (k > 0 || block.items.length === 0)) {
        kept = k;
        cost = candidate;
      }
    }
    if (kept < 0) {
      left.push(block);
      closed = true;
      continue;
    }
    used += cost;
    placed.push({ block, kept, advice: false });
    if (kept < block.items.length) {
      partial.push({ section: block.section, whole: false, get: block.get });
      closed = true;
    }
  }
  // Advice comes last: it gets whatever room the sections left, in priority order.
  for (const placement of placed) {
    const cost = sum(placement.block.advice);
    if (placement.block.advice.length > 0 && used + cost <= room) {
      placement.advice = true;
      used += cost;
    }
  }
  const lines = [...header];
  for (const { block, kept, advice } of placed) {
    const total = block.items.length + block.unlisted;
    lines.push(...block.head, ...block.items.slice(0, kept));
    if (total - kept > 0) lines.push(moreLine(block, total - kept));
    lines.push(...block.tail, ...(advice ? block.advice : []));
  }
  const shown = placed.map((placement) => placement.block.section);
  const footer = footerLine(left, budget, style);
  if (footer !== undefined) lines.push(footer);
  const wholes = left.map((block) => ({ section: block.section, whole: true, get: block.get }));
  const order = (entry: OmittedSection): number => CONTEXT_SECTIONS.indexOf(entry.section);
  return { text: lines.join("\n"), shown, omitted: [...partial, ...wholes].sort((a, b) => order(a) - order(b)), left };
}

function moreLine(block: Block, count: number): string {
  return `  ... and ${count} more (${block.get})`;
}

function footerLine(omitted: readonly Block[], budget: number, style: "full" | "short"): string | undefined {
  if (omitted.length === 0) return undefined;
  const labels = omitted.map((block) => block.label).join(", ");
  if (style === "short") return `Left out to fit ${budget} tokens: ${labels} (call git_context with a larger budget).`;
  // One call per tool: sections only git_context returns are asked for together.
  const groups = new Map<string, Block[]>();
  for (const block of omitted) {
    const key = block.get.startsWith("git_context ") ? "git_context" : block.get;
    groups.set(key, [...(groups.get(key) ?? []), block]);
  }
  const calls = [...groups].map(([key, blocks]) => {
    const call = key === "git_context" && blocks.length > 1 ? contextCall(blocks.map((block) => block.section)) : blocks[0]!.get;
    return `${blocks.map((block) => block.label).join(", ")}: ${call}`;
  });
  return `Left out to fit ${budget} tokens: ${calls.join("; ")}.`;
}

function contextCall(sections: readonly ContextSection[]): string {
  return `git_context ${JSON.stringify({ sections })}`;
}

function lineEstimator(count: TokenCounter): (line: string) => number {
  const cache = new Map<string, number>();
  return (line) => {
    let tokens = cache.get(line);
    if (tokens === undefined) {
      tokens = count(`${line}\n`);
      cache.set(line, tokens);
    }
    return tokens;
  };
}

function clip(line: string): string {
  if (line.length <= MAX_LINE_CHARS) return line;
  return `${Array.from(line).slice(0, MAX_LINE_CHARS).join("")}...`;
}

function headerLines(snapshot: RepositorySnapshot): string[] {
  const bare = snapshot.gitDir === snapshot.topLevel;
  const lines = [clip(`Git repository: ${showPath(snapshot.topLevel)}${bare ? " (bare: history only, no working tree)" : ""}`)];
  if (snapshot.root !== snapshot.topLevel) {
    const workspace = relative(snapshot.topLevel, snapshot.root).split(sep).join("/");
    lines.push(clip(`Workspace: ${showPath(workspace)} (file paths below are relative to it)`));
  }
  // Always shown, whatever the budget: the one thing about a repository an agent must not miss.
  const warning = neutralisedWarning(snapshot.neutralised ?? []);
  if (warning !== undefined) lines.push(clip(warning));
  const lfs = lfsNote(snapshot.lfs ?? null);
  if (lfs !== undefined) lines.push(clip(lfs));
  // As important: every answer about history is cut short at the boundary.
  const boundary = snapshot.shallowBoundary ?? [];
  if (boundary.length > 0) {
    lines.push(
      clip(
        `Shallow clone: history stops at ${boundary.length === 1 ? "the boundary commit" : `${boundary.length} boundary commits`} ${boundary.slice(0, 3).map(short).join(", ")}; older commits are not here (logs end there, blame credits older lines to it). The user can run git fetch --unshallow.`,
      ),
    );
  }
  return lines;
}

function short(oid: string | null): string {
  return oid === null ? "(none)" : oid.slice(0, 12);
}

/**
 * One section's lines, or `undefined` when it has nothing to say. Sections whose usual state is empty (no
 * operation, no lock, no stash, no linked worktree, no submodule) say nothing then, unless asked for by name.
 */
function buildBlock(snapshot: RepositorySnapshot, section: ContextSection, explicit: boolean): Block | undefined {
  const part = snapshot[section] as Part<unknown>;
  const block = (head: string[], items: string[] = [], tail: string[] = [], unlisted = 0, advice: string[] = []): Block => ({
    section,
    head: head.map(clip),
    items: items.map((item) => clip(`  ${item}`)),
    tail: tail.map(clip),
    unlisted,
    advice: advice.map((line) => clip(`  ${line}`)),
    label: LABEL[section],
    get: GET[section],
  });
  if (!part.ok) {
    const title = LABEL[section];
    return block([`${title[0]!.toUpperCase()}${title.slice(1)}: unavailable (${part.reason.split("\n")[0]})`]);
  }
  switch (section) {
    case "branch": {
      const branch = snapshot.branch!.ok ? snapshot.branch!.value : undefined;
      if (branch === undefined) return undefined;
      const at = branch.tags !== undefined && branch.tags.length > 0 ? ` at tag ${branch.tags.map(showValue).join(", tag ")}` : "";
      return block([branch.detached ? `Branch: none (detached HEAD${at})` : `Branch: ${showValue(branch.name ?? "")}`]);
    }
    case "head": {
      const head = snapshot.head!.ok ? snapshot.head!.value : undefined;
      if (head === undefined) return undefined;
      return block([
        head === null
          ? "HEAD: no commits yet"
          : `HEAD: ${head.shortHash} ${showValue(head.subject)} (${showValue(head.author)}, ${head.date.slice(0, 10)})`,
      ]);
    }
    case "operation": {
      const state = snapshot.operation!.ok ? snapshot.operation!.value : undefined;
      if (state === undefined) return undefined;
      if (state.operations.length === 0 && state.conflicted.length === 0) {
        return explicit ? block(["In progress: nothing (no merge, rebase, cherry-pick, revert, am or bisect; no conflicts)"]) : undefined;
      }
      const head = state.operations.map((operation) => `In progress: ${describeOperation(operation)}`);
      if (state.conflicted.length > 0) head.push(`Conflicted files (${state.conflicted.length}):`);
      return block(head, state.conflicted.map(showPath));
    }
    case "indexLock": {
      const lock = snapshot.indexLock!.ok ? snapshot.indexLock!.value : undefined;
      if (lock === undefined) return undefined;
      if (lock === null) return explicit ? block(["Index lock: none"]) : undefined;
      const shown = lock.path.startsWith(`${snapshot.topLevel}${sep}`) ? relative(snapshot.topLevel, lock.path) : lock.path;
      return lock.stale
        ? block(
            [`Index lock: ${shown} is ${lock.ageSeconds} s old, probably stale (over ${DEFAULT_STALE_LOCK_MS / 1000} s: a git process died?).`],
            [],
            [],
            0,
            ["If no git command is running, delete it; git commands that write fail until then."],
          )
        : block([`Index lock: ${shown} is ${lock.ageSeconds} s old: a git command is running.`], [], [], 0, [
            "Git commands that write fail until it ends.",
          ]);
    }
    case "base": {
      const base = snapshot.base!.ok ? snapshot.base!.value : undefined;
      if (base === undefined) return undefined;
      const upstream = base?.upstream == null ? [] : [describeUpstream(base.upstream)];
      // On the base branch itself (main, whose base is origin/main) there is no change of a branch to review.
      const current = snapshot.branch?.ok === true ? snapshot.branch.value.name : null;
      const own =
        base !== null && current !== null && (base.name === current || (base.ref.startsWith("refs/remotes/") && base.name.endsWith(`/${current}`)));
      return block([describeBase(base), ...upstream], [], [], 0, base?.mergeBase && !own ? [BASE_DIFF_ADVICE] : []);
    }
    case "status": {
      const status = snapshot.status!.ok ? snapshot.status!.value : undefined;
      if (status === undefined) return undefined;
      const { counts } = status;
      if (counts.total === 0) return block(["Changes: none (index and working tree match HEAD)"]);
      return block([`Changes (${describeCounts(counts)}):`], status.entries.map(statusLine), [], status.more);
    }
    case "untracked": {
      const untracked = snapshot.untracked!.ok ? snapshot.untracked!.value : undefined;
      if (untracked === undefined) return undefined;
      if (untracked.total === 0) return block(["Untracked files: none"]);
      const tail =
        untracked.hidden.length === 0 ? [] : [`  Not named: ${untracked.hidden.map((hidden) => `${hidden.count} ${hidden.reason}`).join("; ")}.`];
      // Files and directory lines in git's (byte) order; a directory sorts just before its own files.
      const items = [
        ...untracked.files.map((path) => ({ path, line: showPath(path) })),
        ...untracked.directories.map((dir) => ({ path: dir.path, line: `${showPath(dir.path)} (${dir.files} untracked files)` })),
      ].sort((a, b) => Buffer.compare(Buffer.from(a.path), Buffer.from(b.path)));
      return block(
        [`Untracked files (${untracked.total}):`],
        items.map((item) => item.line),
        tail,
        untracked.more,
      );
    }
    case "commits": {
      const commits = snapshot.commits!.ok ? snapshot.commits!.value : undefined;
      if (commits === undefined) return undefined;
      const scope = snapshot.commitsLimitedTo == null ? "" : ` touching the workspace ${showPath(`${snapshot.commitsLimitedTo}/`)}`;
      if (commits.length === 0) return block([`Recent commits${scope}: none yet`]);
      return block(
        [`Recent commits${scope} (newest first):`],
        commits.map((commit) => `${commit.shortHash} ${commit.date.slice(0, 10)} ${showValue(commit.author)}: ${showValue(commit.subject)}`),
      );
    }
    case "stashes": {
      const stashes = snapshot.stashes!.ok ? snapshot.stashes!.value : undefined;
      if (stashes === undefined) return undefined;
      if (stashes.length === 0) return explicit ? block(["Stashes: none"]) : undefined;
      return block(
        [`Stashes (${stashes.length}):`],
        stashes.map((stash) => `${stash.ref}: ${showValue(stash.message)}`),
      );
    }
    case "remotes": {
      const remotes = snapshot.remotes!.ok ? snapshot.remotes!.value : undefined;
      if (remotes === undefined) return undefined;
      if (remotes.length === 0) return block(["Remotes: none"]);
      return block(
        [`Remotes (${remotes.length}):`],
        remotes.map(
          (remote) =>
            `${showValue(remote.name)} ${remote.url === null ? "(no URL)" : showValue(remote.url)}${remote.pushUrl === null ? "" : ` (push: ${showValue(remote.pushUrl)})`}`,
        ),
      );
    }
    case "worktrees": {
      const worktrees = snapshot.worktrees!.ok ? snapshot.worktrees!.value : undefined;
      if (worktrees === undefined) return undefined;
      if (worktrees.length <= 1) return explicit ? block(["Worktrees: no linked worktree"]) : undefined;
      const stale = worktrees.filter((worktree) => worktree.stale).length;
      return block(
        [`Worktrees (${worktrees.length}):`],
        worktrees.map((worktree) => {
          const what = worktree.bare ? "bare" : `${worktree.branch === null ? "detached" : showValue(worktree.branch)} ${short(worktree.head)}`;
          const flags = [
            worktree.current ? "this one" : "",
            worktree.main ? "main" : "",
            worktree.gitctx ? "gitctx" : "",
            worktree.stale ? "stale" : "",
            worktree.locked ? "locked" : "",
            worktree.prunable ? "prunable" : "",
          ]
            .filter(Boolean)
            .join(", ");
          return `${showPath(worktree.path)} ${what}${flags === "" ? "" : ` (${flags})`}`;
        }),
        [],
        0,
        stale === 0 ? [] : [`Stale: unused for ${DEFAULT_STALE_DAYS}+ days and held by no session; gitctx worktree cleanup removes the clean ones.`],
      );
    }
    case "submodules": {
      const submodules = snapshot.submodules!.ok ? snapshot.submodules!.value : undefined;
      if (submodules === undefined) return undefined;
      if (submodules.length === 0) return explicit ? block(["Submodules: none"]) : undefined;
      return block(
        [`Submodules (${submodules.length}):`],
        submodules.map(
          (module) =>
            `${showPath(module.path)} ${short(module.commit)} ${module.url === null ? "(no URL)" : showValue(module.url)}${module.initialized ? "" : " (not initialized)"}${
              module.commitChanged === true ? " (checked out at another commit than the one recorded)" : ""
            }`,
        ),
      );
    }
  }
}

function describeOperation(operation: Operation): string {
  const progress = operation.step !== null && operation.steps !== null ? `, step ${operation.step} of ${operation.steps}` : "";
  switch (operation.kind) {
    case "merge":
      return `merge of ${operation.branch === null ? "" : `${showValue(operation.branch)} (`}${short(operation.commit)}${operation.branch === null ? "" : ")"}. Resolve conflicts, git add, git commit; or git merge --abort.`;
    case "rebase":
      return `rebase of ${operation.branch === null ? "a detached HEAD" : showValue(operation.branch)} onto ${short(operation.onto)}${progress}. Resolve conflicts, git add, git rebase --continue; or git rebase --abort.`;
    case "am":
      return `git am${progress}. git am --continue, --skip or --abort.`;
    case "cherry-pick":
      return `cherry-pick of ${short(operation.commit)}. Resolve conflicts, git add, git cherry-pick --continue; or git cherry-pick --abort.`;
    case "revert":
      return `revert of ${short(operation.commit)}. Resolve conflicts, git add, git revert --continue; or git revert --abort.`;
    case "bisect":
      return `bisect${operation.branch === null ? "" : ` started on ${showValue(operation.branch)}`}. Mark commits with git bisect good/bad; end with git bisect reset.`;
  }
}

const BASE_DIFF_ADVICE = `Whole change of this branch: git_diff {"commit":"${BASE_REVISION}"} (with uncommitted work) or {"commit":"${BASE_REVISION}..HEAD"} (commits only).`;

/** The branch's own upstream, apart from its base: what is not pushed yet. */
function describeUpstream(upstream: OwnUpstream): string {
  if (upstream.gone) return `Upstream: ${showValue(upstream.name)} is gone (deleted on the remote).`;
  return `Upstream: ${showValue(upstream.name)}: ${upstream.ahead} ahead, ${upstream.behind} behind${upstream.ahead === 0 && upstream.behind === 0 ? " (in sync)" : ""}.`;
}

function describeBase(base: BaseBranch | null): string {
  if (base === null) {
    return "Base branch: none found (no upstream, no refs/remotes/<remote>/HEAD, none of main, master, develop, trunk).";
  }
  const where = `Base branch: ${showValue(base.name)} (${base.reason})`;
  if (base.ahead === null || base.behind === null) return `${where}; HEAD has no commits yet.`;
  const distance = `${base.ahead} ahead, ${base.behind} behind`;
  if (base.mergeBase === null) return `${where}: ${distance}; no common history with HEAD.`;
  return `${where}: ${distance}, merge-base ${short(base.mergeBase)}.`;
}

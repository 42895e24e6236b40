import { posix } from "node:path";
import * as z from "zod";
import { GitctxError } from "../errors.js";
import { resolveWorkspacePath } from "../git/args.js";
import { gitFailure } from "../git/failures.js";
import { neutralisedLine, type NeutralisedSetting } from "../git/config-scan.js";
import { countStatus, parseStatusV2, type BranchInfo, type StatusCounts, type StatusEntry } from "../git/parse/status.js";
import { lfsNote, type LfsReading } from "../git/lfs.js";
import type { Repository } from "../git/repository.js";
import { describeCounts, statusLine } from "../context/status-text.js";
import { formatCount, plural, showPath, showValue } from "../text.js";
import { DEFAULT_TEXT_BUDGET, fittingPrefix, largestFitting, measure } from "./budget.js";
import { pathField } from "./fields.js";
import { countSchema, lfsReadingSchema, neutralisedSchema, statusEntrySchema, type Assert, type Exact } from "./outputs.js";
import { defineTool } from "./tool.js";

const MAX_STATUS_LIMIT = 1_000_000;

export interface GitStatusData {
  branch: BranchInfo;
  clean: boolean;
  /** One page of the entries, in git's (path) order: `counts.total` entries in all, these from `offset` on. */
  entries: StatusEntry[];
  /** Every entry, counted: not only the page. */
  counts: StatusCounts;
  /** Index of the page's first entry among all of them. */
  offset: number;
  /** Pass as `offset` for the next page; `null` when this page holds the last entry. */
  nextOffset: number | null;
  /** The path the status was limited to, relative to the workspace root, or `null`. */
  path: string | null;
  /** Program-naming settings of the repository's config that gitctx neutralised (none ran), then the user's own filters. */
  neutralised: NeutralisedSetting[];
  /** Present when the config sets up Git LFS: its files were compared as git-lfs would (see git/lfs.ts). */
  lfs?: LfsReading;
}

const inputSchema = z.strictObject({
  short: z.boolean().default(true).describe("true (default): one compact line per changed file. false: git's long human-readable status as text."),
  path: pathField.optional().describe("Limit the status to this file or directory (relative to the workspace root)."),
  untracked: z
    .enum(["all", "normal", "no"])
    .default("all")
    .describe("Untracked files: all (every file, default), normal (collapse untracked directories), no (hide)."),
  limit: z
    .number()
    .int()
    .min(1)
    .max(MAX_STATUS_LIMIT)
    .optional()
    .describe(
      `Most entries to return. Default: as many as fit ${formatCount(DEFAULT_TEXT_BUDGET)} tokens of text; the counts always cover every entry.`,
    ),
  offset: z.number().int().min(0).default(0).describe("Skip this many entries first: pass the nextOffset of a result to get the next page."),
});

const outputSchema = z.strictObject({
  branch: z.strictObject({
    head: z.string().nullable(),
    oid: z.string().nullable(),
    upstream: z.string().nullable(),
    ahead: countSchema.nullable(),
    behind: countSchema.nullable(),
    detached: z.boolean(),
    tags: z.array(z.string()).optional().describe("Only when HEAD is detached: the tags pointing at the commit it is at."),
  }),
  clean: z.boolean(),
  entries: z.array(statusEntrySchema).describe("One page of the entries (see offset, nextOffset); counts cover every entry."),
  counts: z.strictObject({
    staged: countSchema,
    unstaged: countSchema,
    untracked: countSchema,
    conflicted: countSchema,
    total: countSchema,
  }),
  offset: countSchema,
  nextOffset: countSchema.nullable(),
  path: z.string().nullable(),
  neutralised: neutralisedSchema,
  lfs: lfsReadingSchema,
});
type _OutputMatchesData = Assert<Exact<z.output<typeof outputSchema>, GitStatusData>>;

export const gitStatus = defineTool({
  name: "git_status",
  title: "Git status",
  description:
    "Show the working tree status: current branch, upstream ahead/behind, and every staged, unstaged, " +
    "untracked and conflicted file, as structured data (a page of entries that fits the answer, with counts of all " +
    "of them and nextOffset to continue). Prefer this over running `git status` in a shell: it " +
    "cannot run programs named by the repository's config, and its output does not depend on local settings.",
  keywords: ["git", "status", "changes", "modified", "staged", "untracked", "branch", "dirty", "clean", "conflict"],
  permission: "read-only",
  requires: "repository",
  inputSchema,
  outputSchema,
  async run(input, context) {
    const repo = await context.repo();
    repo.requireWorkTree("git_status", "git_log, git_show and git_blame with ref read its history.");
    const target = input.path === undefined ? undefined : await resolveWorkspacePath(repo, input.path);
    // A workspace below the top level sees only its own files, named relative to it like the caller's paths.
    const prefix = repo.paths.prefix;
    const scope = target?.pathspec ?? (prefix === "" ? undefined : prefix);
    const pathspecs = scope === undefined ? [] : [scope];
    const untracked = `--untracked-files=${input.untracked}`;
    // Submodules as the user's git status shows them: submodule.<name>.ignore and diff.ignoreSubmodules apply.
    const common = [untracked, "--find-renames", "--ahead-behind"];
    const [porcelain, long] = await Promise.all([
      repo.git("status", ["--porcelain=v2", "--branch", "-z", ...common, "--", ...pathspecs]),
      input.short ? undefined : repo.git("status", ["--long", ...common, "--", ...pathspecs]),
    ]);
    if (porcelain.exitCode !== 0) throw gitFailure("git status", porcelain.stderr);
    if (long !== undefined && long.exitCode !== 0) throw gitFailure("git status", long.stderr);

    const { branch, entries: all } = parseStatusV2(porcelain.stdout);
    if (target !== undefined && !target.exists && all.length === 0) {
      // Neither on disk nor in the index (a tracked file that is gone would be listed as deleted): a typo, not a clean tree.
      throw new GitctxError(
        "path_not_found",
        `path "${target.input}" matches nothing in the working tree or the index.`,
        "Check the spelling (paths are relative to the workspace root), or call git_status without path.",
      );
    }
    if (branch.detached && branch.oid !== null) branch.tags = await tagsAt(repo, branch.oid);
    const entries = prefix === "" ? all : all.map((entry) => relativeEntry(entry, prefix));
    const base: GitStatusData = {
      branch,
      clean: entries.length === 0,
      entries,
      counts: countStatus(entries),
      offset: input.offset,
      nextOffset: null,
      path: target?.input ?? null,
      neutralised: [...repo.neutralised],
      ...(repo.lfs !== null ? { lfs: { ...repo.lfs } } : {}),
    };
    const notes = [neutralisedLine(base.neutralised), lfsNote(repo.lfs)].filter((line) => line !== undefined);
    const note = notes.length === 0 ? undefined : notes.join("\n");
    const page = (count: number): GitStatusData => {
      const end = Math.min(entries.length, input.offset + count);
      return { ...base, entries: entries.slice(input.offset, end), nextOffset: end < entries.length ? end : null };
    };
    const render = (data: GitStatusData): string => {
      const text = renderStatus(data, input.untracked);
      return note === undefined ? text : `${text}\n${note}`;
    };
    const available = Math.max(0, entries.length - input.offset);
    let data: GitStatusData;
    let text: string;
    if (input.limit !== undefined) {
      data = page(input.limit);
      text = render(data);
    } else {
      const fitted = await largestFitting((count) => render(page(count)), Math.min(1, available), available, measure());
      data = page(fitted.k);
      text = fitted.text;
    }
    if (long !== undefined) text = await fitLongStatus(long.stdout.replace(/\n+$/, ""), note);
    return { data, text };
  },
});

/** The tags pointing at `oid` (what a detached HEAD is "at"), sorted as git sorts them. */
async function tagsAt(repo: Repository, oid: string): Promise<string[]> {
  const listed = await repo.git("for-each-ref", [`--points-at=${oid}`, "--format=%(refname:strip=2)", "--", "refs/tags"]);
  if (listed.exitCode !== 0) throw gitFailure("git for-each-ref", listed.stderr);
  return listed.stdout.split("\n").filter((name) => name !== "");
}

/** git's long status, cut at a line to fit the budget when it is longer, saying how to see every entry. */
async function fitLongStatus(long: string, note: string | undefined): Promise<string> {
  const withNote = note === undefined ? long : `${long}\n${note}`;
  const size = measure();
  if ((await size.tokens(withNote)) <= size.budget) return withNote;
  const advice = "[long status cut to fit the token budget: call git_status with short=true (the default) and offset to page through every entry]";
  const room = size.budget - (await size.tokens(`${advice}\n${note ?? ""}`)) - 8;
  const kept = long.slice(0, await fittingPrefix(`${long}\n`, room)).replace(/\n$/, "");
  return [kept, advice, ...(note === undefined ? [] : [note])].join("\n");
}

function relativeEntry(entry: StatusEntry, prefix: string): StatusEntry {
  const rebase = (path: string): string => {
    // Untracked directories end with `/`, which path.relative would drop.
    const slash = path.endsWith("/") ? "/" : "";
    return (posix.relative(prefix, path) || ".") + slash;
  };
  return { ...entry, path: rebase(entry.path), origPath: entry.origPath === null ? null : rebase(entry.origPath) };
}

/** `untracked` is the mode the status was read with: with `no`, a clean tree may still hold untracked files. */
export function renderStatus(data: GitStatusData, untracked: "all" | "normal" | "no" = "all"): string {
  const lines = [branchLine(data.branch)];
  const scope = data.path === null ? "" : ` under ${showPath(data.path)}`;
  if (data.clean) {
    const none = untracked === "no" ? "untracked files not checked (untracked=no)" : "no untracked files";
    lines.push(`Working tree clean${scope}: nothing staged, nothing modified, ${none}.`);
    return lines.join("\n");
  }
  lines.push(`${plural(data.counts.total, "path")} changed${scope} (${describeCounts(data.counts)}):`);
  for (const entry of data.entries) lines.push(statusLine(entry));
  const footer = pageFooter(data);
  if (footer !== undefined) lines.push(footer);
  return lines.join("\n");
}

/** What the page left out and the call for the rest; `undefined` when it holds every entry. */
function pageFooter(data: GitStatusData): string | undefined {
  const total = data.counts.total;
  if (data.entries.length === total) return undefined;
  if (data.entries.length === 0) {
    return `[no entries from offset ${data.offset}: there are ${plural(total, "entry", "entries")}; call git_status with offset=0]`;
  }
  const first = data.offset + 1;
  const last = data.offset + data.entries.length;
  const next =
    data.nextOffset === null
      ? ""
      : ` Call git_status with offset=${data.nextOffset} and the same other arguments for the next ones, or pass path to narrow it.`;
  const before = data.offset > 0 ? ` Entries 1-${data.offset} come with offset=0.` : "";
  return `[entries ${first}-${last} of ${total} shown.${next}${before}]`;
}

function branchLine(branch: BranchInfo): string {
  const tags =
    branch.tags !== undefined && branch.tags.length > 0
      ? `tag ${branch.tags.map(showValue).join(", tag ")} (${branch.oid?.slice(0, 12)})`
      : undefined;
  let line = branch.detached ? `HEAD detached at ${tags ?? branch.oid?.slice(0, 12) ?? "(unknown)"}` : `On branch ${showValue(branch.head ?? "")}`;
  if (branch.oid === null) line += " (no commits yet)";
  if (branch.upstream !== null) {
    line +=
      branch.ahead === null
        ? `, upstream ${showValue(branch.upstream)} (gone)`
        : `, upstream ${showValue(branch.upstream)}: ahead ${branch.ahead}, behind ${branch.behind}`;
  }
  return line;
}

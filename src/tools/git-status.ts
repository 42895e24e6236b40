import { posix } from "node:path";
import { z } from "zod";
import { GitctxError } from "../errors.js";
import { resolveWorkspacePath } from "../git/args.js";
import { gitFailure } from "../git/failures.js";
import { describeNeutralised, type NeutralisedSetting } from "../git/config-scan.js";
import { countStatus, parseStatusV2, type BranchInfo, type StatusCounts, type StatusEntry } from "../git/parse/status.js";
import { plural, showPath, showValue } from "../text.js";
import { pathField } from "./fields.js";
import { countSchema, neutralisedSchema, statusEntrySchema, type Assert, type Exact } from "./outputs.js";
import { defineTool } from "./tool.js";

export interface GitStatusData {
  branch: BranchInfo;
  clean: boolean;
  entries: StatusEntry[];
  counts: StatusCounts;
  /** The path the status was limited to, relative to the workspace root, or `null`. */
  path: string | null;
  /** Program-naming settings of the repository's config that gitctx neutralised (none ran). */
  neutralised: NeutralisedSetting[];
}

const inputSchema = z.strictObject({
  short: z
    .boolean()
    .default(true)
    .describe("true (default): one compact line per changed file. false: git's long human-readable status as text."),
  path: pathField.optional().describe("Limit the status to this file or directory (relative to the workspace root)."),
  untracked: z
    .enum(["all", "normal", "no"])
    .default("all")
    .describe("Untracked files: all (every file, default), normal (collapse untracked directories), no (hide)."),
});

const outputSchema = z.strictObject({
  branch: z.strictObject({
    head: z.string().nullable(),
    oid: z.string().nullable(),
    upstream: z.string().nullable(),
    ahead: countSchema.nullable(),
    behind: countSchema.nullable(),
    detached: z.boolean(),
  }),
  clean: z.boolean(),
  entries: z.array(statusEntrySchema),
  counts: z.strictObject({
    staged: countSchema,
    unstaged: countSchema,
    untracked: countSchema,
    conflicted: countSchema,
    total: countSchema,
  }),
  path: z.string().nullable(),
  neutralised: neutralisedSchema,
});
type _OutputMatchesData = Assert<Exact<z.output<typeof outputSchema>, GitStatusData>>;

export const gitStatus = defineTool({
  name: "git_status",
  title: "Git status",
  description:
    "Show the working tree status: current branch, upstream ahead/behind, and every staged, unstaged, " +
    "untracked and conflicted file, as structured data. Prefer this over running `git status` in a shell: it " +
    "cannot run programs named by the repository's config, and its output does not depend on local settings.",
  keywords: ["git", "status", "changes", "modified", "staged", "untracked", "branch", "dirty", "clean", "conflict"],
  permission: "read-only",
  requires: "repository",
  inputSchema,
  outputSchema,
  async run(input, context) {
    const repo = await context.repo();
    const target = input.path === undefined ? undefined : await resolveWorkspacePath(repo, input.path);
    // A workspace below the top level sees only its own files, named relative to it like the caller's paths.
    const prefix = repo.paths.prefix;
    const scope = target?.pathspec ?? (prefix === "" ? undefined : prefix);
    const pathspecs = scope === undefined ? [] : [scope];
    const untracked = `--untracked-files=${input.untracked}`;
    const common = [untracked, "--ignore-submodules=none", "--find-renames", "--ahead-behind"];
    const [porcelain, long] = await Promise.all([
      repo.git("status", ["--porcelain=v2", "--branch", "-z", ...common, "--", ...pathspecs]),
      input.short ? undefined : repo.git("status", ["--long", ...common, "--", ...pathspecs]),
    ]);
    if (porcelain.exitCode !== 0) throw gitFailure("git status", porcelain.stderr);
    if (long !== undefined && long.exitCode !== 0) throw gitFailure("git status", long.stderr);

    const { branch, entries } = parseStatusV2(porcelain.stdout);
    if (target !== undefined && !target.exists && entries.length === 0) {
      // Neither on disk nor in the index (a tracked file that is gone would be listed as deleted): a typo, not a clean tree.
      throw new GitctxError(
        "path_not_found",
        `path "${target.input}" matches nothing in the working tree or the index.`,
        "Check the spelling (paths are relative to the workspace root), or call git_status without path.",
      );
    }
    const data: GitStatusData = {
      branch,
      clean: entries.length === 0,
      entries: prefix === "" ? entries : entries.map((entry) => relativeEntry(entry, prefix)),
      counts: countStatus(entries),
      path: target?.input ?? null,
      neutralised: [...repo.neutralised],
    };
    const text = long !== undefined ? long.stdout.replace(/\n+$/, "") : renderStatus(data, input.untracked);
    const note = neutralisedLine(data.neutralised);
    return { data, text: note === undefined ? text : `${text}\n${note}` };
  },
});

/**
 * One line telling the model (and its user) that the repository's config names programs, and which: keys only,
 * never the values (a value is the config author's text). `undefined` when there are none.
 */
export function neutralisedLine(settings: readonly NeutralisedSetting[]): string | undefined {
  if (settings.length === 0) return undefined;
  return `Warning: this repository's config names programs git would run; gitctx neutralised them (none ran): ${describeNeutralised(settings)}.`;
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
  const { counts } = data;
  const parts = [
    counts.staged > 0 ? `${counts.staged} staged` : "",
    counts.unstaged > 0 ? `${counts.unstaged} unstaged` : "",
    counts.untracked > 0 ? `${counts.untracked} untracked` : "",
    counts.conflicted > 0 ? `${counts.conflicted} conflicted` : "",
  ].filter(Boolean);
  lines.push(`${plural(counts.total, "path")} changed${scope} (${parts.join(", ")}):`);
  for (const entry of data.entries) {
    const code = entry.kind === "untracked" ? "??" : `${entry.index}${entry.worktree}`.replaceAll(".", " ");
    const name = entry.origPath === null ? showPath(entry.path) : `${showPath(entry.origPath)} -> ${showPath(entry.path)}`;
    lines.push(`${code} ${name}`);
  }
  return lines.join("\n");
}

function branchLine(branch: BranchInfo): string {
  let line = branch.detached ? `HEAD detached at ${branch.oid?.slice(0, 12) ?? "(unknown)"}` : `On branch ${showValue(branch.head ?? "")}`;
  if (branch.oid === null) line += " (no commits yet)";
  if (branch.upstream !== null) {
    line +=
      branch.ahead === null
        ? `, upstream ${showValue(branch.upstream)} (gone)`
        : `, upstream ${showValue(branch.upstream)}: ahead ${branch.ahead}, behind ${branch.behind}`;
  }
  return line;
}

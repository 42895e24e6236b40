import { z } from "zod";
import { resolveWorkspacePath, gitFailure } from "../git/args.js";
import { countStatus, parseStatusV2, type BranchInfo, type StatusCounts, type StatusEntry } from "../git/parse/status.js";
import { plural, showPath } from "../text.js";
import { pathField } from "./fields.js";
import { defineTool } from "./tool.js";

export interface GitStatusData {
  branch: BranchInfo;
  clean: boolean;
  entries: StatusEntry[];
  counts: StatusCounts;
  /** The path the status was limited to, relative to the workspace root, or `null`. */
  path: string | null;
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

export const gitStatus = defineTool({
  name: "git_status",
  title: "Git status",
  description:
    "Show the working tree status: current branch, upstream ahead/behind, and every staged, unstaged, " +
    "untracked and conflicted file, as structured data. Prefer this over running `git status` in a shell: it " +
    "cannot run programs named by the repository's config, and its output does not depend on local settings.",
  keywords: ["git", "status", "changes", "modified", "staged", "untracked", "branch", "dirty", "clean", "conflict"],
  permission: "read-only",
  inputSchema,
  async run(input, { repo }) {
    const target = input.path === undefined ? undefined : await resolveWorkspacePath(repo, input.path);
    const pathspecs = target === undefined ? [] : [target.pathspec];
    const untracked = `--untracked-files=${input.untracked}`;
    const common = [untracked, "--ignore-submodules=none", "--find-renames", "--ahead-behind"];
    const [porcelain, long] = await Promise.all([
      repo.git("status", ["--porcelain=v2", "--branch", "-z", ...common, "--", ...pathspecs]),
      input.short ? undefined : repo.git("status", ["--long", ...common, "--", ...pathspecs]),
    ]);
    if (porcelain.exitCode !== 0) throw gitFailure("git status", porcelain.stderr);
    if (long !== undefined && long.exitCode !== 0) throw gitFailure("git status", long.stderr);

    const { branch, entries } = parseStatusV2(porcelain.stdout);
    const data: GitStatusData = {
      branch,
      clean: entries.length === 0,
      entries,
      counts: countStatus(entries),
      path: target?.input ?? null,
    };
    const text = long !== undefined ? long.stdout.replace(/\n$/, "") : renderStatus(data);
    return { data, text };
  },
});

export function renderStatus(data: GitStatusData): string {
  const lines = [branchLine(data.branch)];
  const scope = data.path === null ? "" : ` under ${showPath(data.path)}`;
  if (data.clean) {
    lines.push(`Working tree clean${scope}: nothing staged, nothing modified, no untracked files.`);
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
  let line = branch.detached ? `HEAD detached at ${branch.oid?.slice(0, 12) ?? "(unknown)"}` : `On branch ${branch.head}`;
  if (branch.oid === null) line += " (no commits yet)";
  if (branch.upstream !== null) {
    line +=
      branch.ahead === null
        ? `, upstream ${branch.upstream} (gone)`
        : `, upstream ${branch.upstream}: ahead ${branch.ahead}, behind ${branch.behind}`;
  }
  return line;
}

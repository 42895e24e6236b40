import { z } from "zod";
import { GitctxError } from "../errors.js";
import { gitFailure, resolveCommit, resolveHead, resolveWorkspacePath } from "../git/args.js";
import { COMMIT_FORMAT, parseCommits, type CommitInfo } from "../git/parse/log.js";
import { plural, showPath } from "../text.js";
import { pathField } from "./fields.js";
import { defineTool } from "./tool.js";

export interface GitLogData {
  commits: CommitInfo[];
  /** More commits match beyond `count` (use `skip` to page). */
  hasMore: boolean;
  /** The commit the walk started from, or `null` when the branch has no commits yet. */
  ref: string | null;
}

const MAX_COUNT = 1000;

/** Free-text filter values reach git as `--flag=value`; they still must not carry control characters. */
const filterText = (what: string) =>
  z
    .string()
    .min(1)
    .max(500)
    .refine((value) => !/[\u0000-\u001f\u007f]/.test(value), `${what} must not contain control characters`);

const inputSchema = z.strictObject({
  count: z.number().int().min(1).max(MAX_COUNT).default(20).describe("Most commits to return (default 20)."),
  oneline: z.boolean().default(false).describe("Text shows one line per commit (short hash and subject)."),
  author: filterText("author").optional().describe("Only commits whose author name or email matches this pattern."),
  since: filterText("since").optional().describe('Only commits after this date, e.g. "2024-01-01" or "2 weeks ago".'),
  until: filterText("until").optional().describe("Only commits before this date."),
  path: pathField.optional().describe("Only commits that touch this file or directory."),
  ref: z.string().optional().describe("Start from this commit, branch or tag instead of HEAD."),
  skip: z.number().int().min(0).default(0).describe("Skip this many matching commits first (for paging)."),
  grep: filterText("grep").optional().describe("Only commits whose message matches this pattern."),
});

type Input = z.output<typeof inputSchema>;

export const gitLog = defineTool({
  name: "git_log",
  title: "Git log",
  description:
    "List commit history with hash, parents, author, committer, dates and full message, newest first. " +
    "Filter by author, date range, path, message (grep) or starting ref; page with count and skip. Prefer this " +
    "over `git log` in a shell: the output is structured and independent of local log formatting settings.",
  keywords: ["git", "log", "history", "commits", "author", "when", "why", "message", "blame", "recent"],
  permission: "read-only",
  inputSchema,
  async run(input, { repo }) {
    const start = input.ref === undefined ? await resolveHead(repo) : await resolveCommit(repo, input.ref, "ref");
    const target = input.path === undefined ? undefined : await resolveWorkspacePath(repo, input.path);
    if (start === undefined) {
      const data: GitLogData = { commits: [], hasMore: false, ref: null };
      return { data, text: "No commits yet: the current branch has no history." };
    }
    const args = ["-z", COMMIT_FORMAT, `--max-count=${input.count + 1}`, `--skip=${input.skip}`];
    if (input.author !== undefined) args.push(`--author=${input.author}`);
    if (input.since !== undefined) args.push(`--since=${input.since}`);
    if (input.until !== undefined) args.push(`--until=${input.until}`);
    if (input.grep !== undefined) args.push(`--grep=${input.grep}`);
    args.push(start, "--");
    if (target !== undefined) args.push(target.pathspec);

    const result = await repo.git("log", args);
    if (result.exitCode !== 0) {
      if (/invalid regular expression|regcomp|Invalid (preceding|range)/i.test(result.stderr)) {
        throw new GitctxError("invalid_input", `author or grep is not a valid regular expression: ${result.stderr.trim()}`, "Escape special characters such as ( [ * + ?.");
      }
      throw gitFailure("git log", result.stderr);
    }
    const all = parseCommits(result.stdout);
    const data: GitLogData = { commits: all.slice(0, input.count), hasMore: all.length > input.count, ref: start };
    return { data, text: renderLog(data, input) };
  },
});

function describeFilters(input: Input): string {
  const filters = [
    input.ref !== undefined ? `ref=${input.ref}` : "",
    input.author !== undefined ? `author=${JSON.stringify(input.author)}` : "",
    input.since !== undefined ? `since=${JSON.stringify(input.since)}` : "",
    input.until !== undefined ? `until=${JSON.stringify(input.until)}` : "",
    input.grep !== undefined ? `grep=${JSON.stringify(input.grep)}` : "",
    input.path !== undefined ? `path=${showPath(input.path)}` : "",
    input.skip > 0 ? `skip=${input.skip}` : "",
  ].filter(Boolean);
  return filters.length === 0 ? "" : filters.join(", ");
}

function renderLog(data: GitLogData, input: Input): string {
  const filters = describeFilters(input);
  if (data.commits.length === 0) {
    return `No commits match ${filters === "" ? "(no filters)" : filters}.`;
  }
  const lines: string[] = [];
  for (const commit of data.commits) {
    if (input.oneline) {
      lines.push(`${commit.shortHash} ${commit.subject}`);
      continue;
    }
    const merge = commit.parents.length > 1 ? ` (merge of ${commit.parents.map((p) => p.slice(0, 7)).join(" ")})` : "";
    lines.push(`${commit.shortHash} ${commit.author.date} ${commit.author.name} <${commit.author.email}>${merge}`);
    lines.push(`    ${commit.subject}`);
    if (commit.body !== "") lines.push(...commit.body.split("\n").map((line) => (line === "" ? "" : `    ${line}`)));
  }
  const shown = `${plural(data.commits.length, "commit")}${filters === "" ? "" : ` matching ${filters}`}`;
  const more = data.hasMore ? `; more match: call git_log with skip=${input.skip + data.commits.length}` : "";
  return `${shown}${more}:\n${lines.join("\n")}`;
}

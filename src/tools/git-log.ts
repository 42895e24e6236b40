import { z } from "zod";
import { GitctxError } from "../errors.js";
import { resolveCommit, resolveHead, resolveWorkspacePath } from "../git/args.js";
import { gitFailure } from "../git/failures.js";
import { COMMIT_FORMAT, parseCommits, type CommitInfo, type Person } from "../git/parse/log.js";
import type { Repository } from "../git/repository.js";
import { plural, showValue } from "../text.js";
import { pathField } from "./fields.js";
import { commitInfoSchema, type Assert, type Exact } from "./outputs.js";
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
  author: filterText("author")
    .optional()
    .describe("Only commits whose author name or email matches this extended regular expression (case-insensitive)."),
  since: filterText("since")
    .optional()
    .describe('Only commits made on or after this date, e.g. "2024-01-31", "2024-01-31 14:00" or "2 weeks ago".'),
  until: filterText("until").optional().describe('Only commits made on or before this date; a bare "2024-01-31" includes that whole day.'),
  path: pathField
    .optional()
    .describe("Only commits that touch this file or directory (default: the whole workspace root)."),
  ref: z.string().optional().describe("Start from this commit, branch or tag instead of HEAD."),
  skip: z.number().int().min(0).default(0).describe("Skip this many matching commits first (for paging)."),
  grep: filterText("grep")
    .optional()
    .describe("Only commits whose message matches this extended regular expression (case-insensitive)."),
});

type Input = z.output<typeof inputSchema>;

const outputSchema = z.strictObject({
  commits: z.array(commitInfoSchema),
  hasMore: z.boolean(),
  ref: z.string().nullable(),
});
type _OutputMatchesData = Assert<Exact<z.output<typeof outputSchema>, GitLogData>>;

export const gitLog = defineTool({
  name: "git_log",
  title: "Git log",
  description:
    "List commit history with hash, parents, author, committer, dates and full message, newest first. " +
    "Filter by author, date range, path, message (grep) or starting ref; page with count and skip. Prefer this " +
    "over `git log` in a shell: the output is structured and independent of local log formatting settings.",
  keywords: ["git", "log", "history", "commits", "author", "when", "why", "message", "blame", "recent"],
  permission: "read-only",
  requires: "repository",
  inputSchema,
  outputSchema,
  async run(input, context) {
    const repo = await context.repo();
    // One after the other, so a call with several mistakes always reports the same one first.
    const start = input.ref === undefined ? "HEAD" : await resolveCommit(repo, input.ref, "ref");
    const target = input.path === undefined ? undefined : await resolveWorkspacePath(repo, input.path);
    const since = input.since === undefined ? undefined : await dateBound(repo, "since", input.since);
    const until = input.until === undefined ? undefined : await dateBound(repo, "until", input.until);
    const args = ["-z", COMMIT_FORMAT, `--max-count=${input.count + 1}`, `--skip=${input.skip}`];
    if (input.author !== undefined || input.grep !== undefined) {
      // Models write `fix|bug` and expect "Fix" to match: extended syntax, case-insensitive.
      args.push("--extended-regexp", "--regexp-ignore-case");
    }
    if (input.author !== undefined) args.push(`--author=${input.author}`);
    if (since !== undefined) args.push(`--since=${since}`);
    if (until !== undefined) args.push(`--until=${until}`);
    if (input.grep !== undefined) args.push(`--grep=${input.grep}`);
    // A workspace below the top level sees only its own history, as git_status and git_diff see only its files.
    const workspace = repo.paths.prefix;
    const pathspec = target?.pathspec ?? (workspace === "" ? undefined : workspace);
    args.push(start, "--");
    if (pathspec !== undefined) args.push(pathspec);

    // HEAD's id is asked of git only when the log cannot tell it: the newest commit of an unfiltered log is HEAD.
    const unfiltered = input.skip === 0 && pathspec === undefined && [input.author, since, until, input.grep].every((v) => v === undefined);
    const asked = start !== "HEAD" || unfiltered ? undefined : resolveHead(repo);
    const [result, head] = await Promise.all([repo.git("log", args), asked]);
    if (result.exitCode !== 0) {
      if (start === "HEAD" && (asked !== undefined ? head : await resolveHead(repo)) === undefined) {
        const data: GitLogData = { commits: [], hasMore: false, ref: null };
        return { data, text: "No commits yet: the current branch has no history." };
      }
      throw logError(result.stderr, input);
    }
    const all = parseCommits(result.stdout);
    const ref = start !== "HEAD" ? start : unfiltered ? (all[0]?.hash ?? null) : (head ?? null);
    const data: GitLogData = { commits: all.slice(0, input.count), hasMore: all.length > input.count, ref };
    return { data, text: renderLog(data, input) };
  },
});

/**
 * The date text git receives for `since`/`until`. git reads a bare `2024-01-31` as that day at the current
 * time of day, so a bound given as a day is widened to the whole day. Any other text is checked with git's
 * careful date parser (`git config --type=expiry-date`): `git log` itself takes text it cannot read as "now".
 */
async function dateBound(repo: Repository, field: "since" | "until", value: string): Promise<string> {
  const day = value.trim();
  if (/^\d{4}-\d{2}-\d{2}$/.test(day)) return `${day} ${field === "since" ? "00:00:00" : "23:59:59"}`;
  const check = await repo.git("config", ["--file=/dev/null", "--type=expiry-date", `--default=${value}`, "--get", "gitctx.date"]);
  if (check.exitCode !== 0) {
    throw new GitctxError(
      "invalid_input",
      `${field} ${JSON.stringify(value)} is not a date git understands.`,
      'Use a date such as "2024-01-31", "2024-01-31 14:00" or "2 weeks ago".',
    );
  }
  return value;
}

/** git names the failing pattern's kind: `header` for --author, `command line` for --grep. */
const REGEX_ERROR = /^fatal: (command line|header), '([\s\S]*)': ([^\n]*)$/m;

function logError(stderr: string, input: Input): GitctxError {
  const regex = REGEX_ERROR.exec(stderr);
  if (regex) {
    const field = regex[1] === "header" ? "author" : "grep";
    const value = field === "author" ? input.author : input.grep;
    return new GitctxError(
      "invalid_input",
      `${field} ${JSON.stringify(value ?? regex[2])} is not a valid regular expression: ${regex[3]!.replace(/\.$/, "")}.`,
      "Patterns are extended regular expressions: escape special characters such as ( [ { * + ? | with a backslash.",
    );
  }
  return gitFailure("git log", stderr);
}

function describeFilters(input: Input): string {
  const quoted = (name: string, value: string | undefined) => (value === undefined ? "" : `${name}=${JSON.stringify(value)}`);
  const filters = [
    quoted("ref", input.ref),
    quoted("author", input.author),
    quoted("since", input.since),
    quoted("until", input.until),
    quoted("grep", input.grep),
    quoted("path", input.path),
    input.skip > 0 ? `skip=${input.skip}` : "",
  ].filter(Boolean);
  return filters.join(", ");
}

function samePerson(a: Person, b: Person): boolean {
  return a.name === b.name && a.email === b.email;
}

function renderLog(data: GitLogData, input: Input): string {
  const filters = describeFilters(input);
  if (data.commits.length === 0) {
    // Without filters only a workspace below the top level can have no history: nothing there is committed yet.
    return filters === "" ? "No commits touch the workspace root yet." : `No commits match ${filters}.`;
  }
  const blocks: string[] = [];
  for (const commit of data.commits) {
    if (input.oneline) {
      blocks.push(`${commit.shortHash} ${showValue(commit.subject)}`);
      continue;
    }
    const notes: string[] = [];
    if (commit.parents.length > 1) notes.push(`(merge of ${commit.parents.map((p) => p.slice(0, 7)).join(" ")})`);
    if (!samePerson(commit.author, commit.committer)) {
      const { name, email, date } = commit.committer;
      notes.push(`(committed by ${showValue(name)} <${showValue(email)}> ${date})`);
    }
    const { name, email, date } = commit.author;
    const lines = [[`${commit.shortHash} ${date} ${showValue(name)} <${showValue(email)}>`, ...notes].join(" "), `    ${showValue(commit.subject)}`];
    if (commit.body !== "") lines.push("", ...indent(commit.body));
    blocks.push(lines.join("\n"));
  }
  const header = `${plural(data.commits.length, "commit")}${filters === "" ? "" : ` matching ${filters}`}, newest first:`;
  const footer = data.hasMore
    ? [`[more commits match: call git_log with skip=${input.skip + data.commits.length} and the same other arguments for the next page]`]
    : [];
  return [header, blocks.join(input.oneline ? "\n" : "\n\n"), ...footer].join("\n");
}

/** Message lines indented like `git log`; blank lines stay empty. */
function indent(text: string): string[] {
  return text.split("\n").map((line) => (line === "" ? "" : `    ${line}`));
}

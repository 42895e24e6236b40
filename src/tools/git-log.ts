import * as z from "zod";
import { GitctxError } from "../errors.js";
import { BASE_REVISION } from "../context/base-branch.js";
import { resolveHead, resolveWorkspacePath } from "../git/args.js";
import { gitFailure } from "../git/failures.js";
import { regexHazard } from "../git/regex.js";
import { attachNotes, noteLines } from "../git/notes.js";
import { commitFormat, parseCommits, type CommitInfo, type Person } from "../git/parse/log.js";
import type { Repository } from "../git/repository.js";
import { plural, quoteValue, showPath, showValue } from "../text.js";
import { fittingPrefix, largestFitting, measure } from "./budget.js";
import { pathField } from "./fields.js";
import { explainBase, resolveRevision, splitRange } from "./revisions.js";
import { commitInfoSchema, countSchema, type Assert, type Exact } from "./outputs.js";
import { defineTool } from "./tool.js";
import { NUL_FIELDS } from "../git/run.js";

export interface GitLogData {
  /** One page of the matching commits, newest first. */
  commits: CommitInfo[];
  /** More commits match beyond this page. */
  hasMore: boolean;
  /** Pass as `skip` for the next page; `null` when nothing more matches. */
  nextSkip: number | null;
  /** The commit the walk started from (a range's right side), or `null` when the branch has no commits yet. */
  ref: string | null;
  /**
   * For a range in `ref`: `A..B` lists the commits of `right` that are not in `left`'s history; `A...B`
   * (`symmetric`) those in either history but not both. Object ids. `null` without a range.
   */
  range: { left: string; right: string; symmetric: boolean } | null;
  /**
   * The directory or file (relative to the repository's top level) the history was limited to: `path`, or the
   * workspace when it is below the top level (its history only, as git_status shows only its files). `null`: the
   * whole repository.
   */
  limitedTo: string | null;
  /**
   * The commits of this page where a shallow clone's history stops: git lists them without parents, though
   * they have some, and nothing older is in the repository. Empty in a complete clone.
   */
  shallowBoundary: string[];
}

const MAX_COUNT = 1000;
/** Commits a call without count asks for (fewer when they do not fit the answer's token budget). */
const DEFAULT_COUNT = 20;

/** Free-text filter values reach git as `--flag=value`; they still must not carry control characters. */
const filterText = (what: string) =>
  z
    .string()
    .min(1)
    .max(500)
    .refine((value) => !/[\u0000-\u001f\u007f]/.test(value), `${what} must not contain control characters`);

/**
 * A pattern git matches against every commit: refused when matching or compiling it could run away (a
 * back-reference, or counted repetitions that write out to thousands of copies; see git/regex.ts).
 */
const patternText = (what: string) =>
  filterText(what).superRefine((value, context) => {
    const hazard = regexHazard(value, "extended");
    if (hazard !== undefined) context.addIssue({ code: "custom", message: `${what} ${hazard}` });
  });

const inputSchema = z.strictObject({
  count: z
    .number()
    .int()
    .min(1)
    .max(MAX_COUNT)
    .optional()
    .describe(`Most commits to return. Default ${DEFAULT_COUNT}, fewer when their text would not fit 10,000 tokens (then nextSkip continues).`),
  oneline: z.boolean().default(false).describe("Text shows one line per commit (short hash and subject)."),
  author: patternText("author")
    .optional()
    .describe("Only commits whose author name or email matches this extended regular expression (case-insensitive)."),
  since: filterText("since").optional().describe('Only commits made on or after this date, e.g. "2024-01-31", "2024-01-31 14:00" or "2 weeks ago".'),
  until: filterText("until").optional().describe('Only commits made on or before this date; a bare "2024-01-31" includes that whole day.'),
  path: pathField.optional().describe("Only commits that touch this file or directory (default: the whole workspace root)."),
  ref: z
    .string()
    .optional()
    .describe(
      "Start from this commit, branch or tag instead of HEAD. A range A..B lists the commits on B that are not on A " +
        `("origin/main..HEAD": the commits of this branch), A...B those on either side but not both; ` +
        `${BASE_REVISION} is the merge-base of HEAD with its base branch, so "${BASE_REVISION}..HEAD" is what a pull request of this branch holds.`,
    ),
  skip: z.number().int().min(0).default(0).describe("Skip this many matching commits first (for paging)."),
  grep: patternText("grep").optional().describe("Only commits whose message matches this extended regular expression (case-insensitive)."),
});

type Input = z.output<typeof inputSchema>;

const outputSchema = z.strictObject({
  commits: z.array(commitInfoSchema),
  hasMore: z.boolean(),
  nextSkip: countSchema.nullable(),
  ref: z.string().nullable(),
  range: z.strictObject({ left: z.string(), right: z.string(), symmetric: z.boolean() }).nullable(),
  limitedTo: z.string().nullable(),
  shallowBoundary: z.array(z.string()),
});
type _OutputMatchesData = Assert<Exact<z.output<typeof outputSchema>, GitLogData>>;

export const gitLog = defineTool({
  name: "git_log",
  title: "Git log",
  description:
    "List commit history with hash, parents, author, committer, dates and full message, newest first. " +
    'Filter by author, date range, path, message (grep) or starting ref, or give a range (ref="origin/main..HEAD", ' +
    `ref="${BASE_REVISION}..HEAD" for the commits of this branch); page with count and skip. Prefer this ` +
    "over `git log` in a shell: the output is structured and independent of local log formatting settings.",
  keywords: ["git", "log", "history", "commits", "author", "when", "why", "message", "blame", "recent"],
  permission: "read-only",
  requires: "repository",
  inputSchema,
  outputSchema,
  async run(input, context) {
    const repo = await context.repo();
    // One after the other, so a call with several mistakes always reports the same one first.
    const walk = input.ref === undefined ? undefined : await resolveWalk(repo, input.ref);
    const start = walk?.right ?? "HEAD";
    const target = input.path === undefined ? undefined : await resolveWorkspacePath(repo, input.path);
    const since = input.since === undefined ? undefined : await dateBound(repo, "since", input.since);
    const until = input.until === undefined ? undefined : await dateBound(repo, "until", input.until);
    const count = input.count ?? DEFAULT_COUNT;
    // With log.follow, the log of the one path given follows its renames, as the user's git log does; git's
    // --skip then counts the commits walked, not those shown (pages overlapped and never ended), so the page is
    // cut here from the first skip + count + 1. --max-count counts the shown ones.
    const follows = target !== undefined && repo.logFollow;
    const paging = follows ? [`--max-count=${input.skip + count + 1}`] : [`--max-count=${count + 1}`, `--skip=${input.skip}`];
    const args = ["-z", commitFormat(repo.logMailmap), ...paging];
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
    // The workspace's directory is a scope, not a file whose renames a user's log.follow would chase.
    if (target === undefined && pathspec !== undefined) args.push("--no-follow");
    // Object ids only: nothing the caller wrote reaches git as a revision.
    if (walk === undefined || walk.left === undefined) args.push(start);
    else if (walk.symmetric) args.push(`${walk.left}...${walk.right}`);
    else args.push(walk.right, `^${walk.left}`);
    args.push("--");
    if (pathspec !== undefined) args.push(pathspec);

    // HEAD's id is asked of git only when the log cannot tell it: the newest commit of an unfiltered log is HEAD.
    const unfiltered = input.skip === 0 && pathspec === undefined && [input.author, since, until, input.grep].every((v) => v === undefined);
    const asked = start !== "HEAD" || unfiltered ? undefined : resolveHead(repo);
    const [result, head] = await Promise.all([repo.git("log", args, { fieldLimit: NUL_FIELDS }), asked]);
    if (result.exitCode !== 0) {
      if (start === "HEAD" && (asked !== undefined ? head : await resolveHead(repo)) === undefined) {
        const data: GitLogData = {
          commits: [],
          hasMore: false,
          nextSkip: null,
          ref: null,
          range: null,
          limitedTo: pathspec ?? null,
          shallowBoundary: [],
        };
        return { data, text: "No commits yet: the current branch has no history." };
      }
      throw logError(result.stderr, input);
    }
    const parsed = parseCommits(result.stdout);
    const all = follows ? parsed.slice(input.skip) : parsed;
    await attachNotes(repo, all);
    const ref = start !== "HEAD" ? start : unfiltered ? (all[0]?.hash ?? null) : (head ?? null);
    const range = walk?.left === undefined ? null : { left: walk.left, right: walk.right, symmetric: walk.symmetric };
    const boundary = new Set(repo.shallowBoundary());
    const page = (shown: number): GitLogData => {
      const more = all.length > shown;
      const commits = all.slice(0, shown);
      const shallowBoundary = commits.filter((commit) => boundary.has(commit.hash)).map((commit) => commit.hash);
      return { commits, hasMore: more, nextSkip: more ? input.skip + shown : null, ref, range, limitedTo: pathspec ?? null, shallowBoundary };
    };
    const walked = [describeWalk(input), pathspec !== undefined && target === undefined ? `touching the workspace ${showPath(`${pathspec}/`)}` : ""];
    const heading = explainBase(repo, walked.filter(Boolean).join(" "));
    const most = Math.min(count, all.length);
    if (input.count !== undefined) {
      const data = page(most);
      return { data, text: renderLog(data, input, heading) };
    }
    // No count given: as many of the default page as fit the budget, and at least one, its message cut if need be.
    const size = measure();
    const fitted = await largestFitting((shown) => renderLog(page(shown), input, heading), Math.min(1, most), most, size);
    const data = page(fitted.k);
    if (data.commits.length === 1 && (await size.tokens(fitted.text)) > size.budget) {
      return { data, text: await renderLongMessage(data, input, heading, size.budget) };
    }
    return { data, text: fitted.text };
  },
});

interface Walk {
  /** The commit the walk starts from (object id). */
  right: string;
  /** The commit whose history is left out (`A` of `A..B`), or one side of `A...B`; `undefined` without a range. */
  left: string | undefined;
  symmetric: boolean;
}

/** `ref` as object ids: one commit, or the two sides of a range (`@{base}` allowed on either side). */
async function resolveWalk(repo: Repository, ref: string): Promise<Walk> {
  const range = splitRange(ref);
  if (range === undefined) return { right: await resolveRevision(repo, ref, "ref"), left: undefined, symmetric: false };
  const left = await resolveRevision(repo, range.left, "ref");
  const right = await resolveRevision(repo, range.right, "ref");
  return { left, right, symmetric: range.threeDot };
}

/** What the commits listed are, in words, before the filters: `ref="A..B"` reads as the set it names. */
function describeWalk(input: Input): string {
  const range = input.ref === undefined ? undefined : splitRange(input.ref);
  if (range === undefined) return "";
  return range.threeDot
    ? `on ${showValue(range.left)} or on ${showValue(range.right)} but not on both`
    : `on ${showValue(range.right)} that are not on ${showValue(range.left)}`;
}

/** The one commit of a page whose message alone is over the budget: the message cut, saying where it is whole. */
async function renderLongMessage(data: GitLogData, input: Input, heading: string, budget: number): Promise<string> {
  const commit = data.commits[0]!;
  // At column 0, where no line of a message (indented by four spaces) can be.
  const note = `[message cut to fit the answer; git_show with commit=${commit.shortHash} and format="metadata" shows more of it, and this result's data holds it whole]`;
  const lines = commit.body.split("\n");
  const withLines = (k: number): string => renderLog({ ...data, commits: [{ ...commit, body: lines.slice(0, k).join("\n") }] }, input, heading, note);
  const fitted = await largestFitting(withLines, 0, lines.length, measure(budget));
  if (fitted.k > 0 || (await measure(budget).tokens(fitted.text)) <= budget) return fitted.text;
  // Not even the first line fits (one enormous line): cut inside it.
  const room = budget - (await measure(budget).tokens(withLines(0))) - 16;
  const first = lines[0]!.slice(0, await fittingPrefix(lines[0]!, Math.max(room, 1)));
  return renderLog({ ...data, commits: [{ ...commit, body: first }] }, input, heading, note);
}

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
  const quoted = (name: string, value: string | undefined) => (value === undefined ? "" : `${name}=${quoteValue(value)}`);
  const ranged = input.ref !== undefined && splitRange(input.ref) !== undefined;
  const filters = [
    ranged ? "" : quoted("ref", input.ref),
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

/** `note`: a line after the commits (that a message was cut). */
function renderLog(data: GitLogData, input: Input, heading: string, note?: string): string {
  const filters = describeFilters(input);
  if (data.commits.length === 0) {
    if (heading !== "") return `No commits ${heading}${filters === "" ? "" : ` match ${filters}`}.`;
    return filters === "" ? "No commits." : `No commits match ${filters}.`;
  }
  const blocks: string[] = [];
  for (const commit of data.commits) {
    if (input.oneline) {
      blocks.push(`${commit.shortHash} ${showValue(commit.subject)}`);
      continue;
    }
    const notes: string[] = [];
    if (data.shallowBoundary.includes(commit.hash)) notes.push("(shallow boundary: its parents are not in this clone)");
    if (commit.parents.length > 1) notes.push(`(merge of ${commit.parents.map((p) => p.slice(0, 7)).join(" ")})`);
    if (!samePerson(commit.author, commit.committer)) {
      const { name, email, date } = commit.committer;
      notes.push(`(committed by ${showValue(name)} <${showValue(email)}> ${date})`);
    }
    const { name, email, date } = commit.author;
    const lines = [[`${commit.shortHash} ${date} ${showValue(name)} <${showValue(email)}>`, ...notes].join(" "), `    ${showValue(commit.subject)}`];
    if (commit.body !== "") lines.push("", ...indent(commit.body));
    if (commit.notes !== undefined) lines.push("", ...noteLines(commit.notes));
    blocks.push(lines.join("\n"));
  }
  const header = `${plural(data.commits.length, "commit")}${heading === "" ? "" : ` ${heading}`}${filters === "" ? "" : ` matching ${filters}`}, newest first:`;
  const footer = data.hasMore
    ? [`[more commits match: call git_log with skip=${data.nextSkip} and the same other arguments for the next page]`]
    : data.shallowBoundary.length > 0
      ? [
          `[history stops at the shallow boundary ${data.shallowBoundary.map((hash) => hash.slice(0, 7)).join(", ")}: this clone has no older commits. ` +
            "The user can run git fetch --deepen=<n> (or --unshallow) to get more.]",
        ]
      : [];
  return [header, blocks.join(input.oneline ? "\n" : "\n\n"), ...(note === undefined ? [] : [note]), ...footer].join("\n");
}

/** Message lines indented like `git log`; blank lines stay empty. */
function indent(text: string): string[] {
  return text.split("\n").map((line) => (line === "" ? "" : `    ${line}`));
}

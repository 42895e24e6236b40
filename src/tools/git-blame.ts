import { lstat, readlink } from "node:fs/promises";
import { describeSize, MAX_WORK_TREE_FILE_BYTES } from "../git/file-limits.js";
import { readWholeRegularFile, streamRegularFile } from "../git/read-file.js";
import { posix } from "node:path";
import * as z from "zod";
import { GitctxError } from "../errors.js";
import { resolveCommit, resolveHead, resolveWorkspacePath, type WorkspacePath } from "../git/args.js";
import { gitFailure } from "../git/failures.js";
import { ignoreRevsFor } from "../git/ignore-revs.js";
import { parseBlamePorcelain, type BlameCommit, type BlameLine, type ParsedBlame } from "../git/parse/blame.js";
import type { Repository } from "../git/repository.js";
import { plural, showPath, showValue } from "../text.js";
import { largestFitting, measure } from "./budget.js";
import { pathField } from "./fields.js";
import { countSchema, type Assert, type Exact } from "./outputs.js";
import { defineTool } from "./tool.js";
import { LINE_FIELDS } from "../git/run.js";

export interface GitBlameData {
  path: string;
  /** The commit blamed from, or `null` for the working tree version of the file. */
  ref: string | null;
  /** First and last line returned (inclusive); 1 and 0 for an empty file, so a loop from one to the other is empty. */
  startLine: number;
  endLine: number;
  /**
   * Where the next lines start when this window is not the rest of the file (the default window, without
   * end_line, is fitted to the token budget): pass as start_line. `null` when the file ends here or the caller
   * gave end_line.
   */
  nextStartLine: number | null;
  lines: BlameLine[];
  /** Each commit once, keyed by hash, so metadata is not repeated per line. */
  commits: Record<string, BlameCommit>;
  /**
   * The commits of this window where a shallow clone's history stops. Blame cannot look past them, so it
   * credits them with every older line (git prints such lines with `^`): those lines may be older.
   */
  shallowBoundary: string[];
}

const lineNumber = z.number().int().min(1);

/** The most lines a blame without end_line returns (fewer when they do not fit the token budget). */
export const BLAME_WINDOW_LINES = 400;

const inputSchema = z.strictObject({
  path: pathField.describe("The file to blame, relative to the workspace root."),
  start_line: lineNumber
    .optional()
    .describe(
      `First line (1-based, default 1). Without end_line: a window of at most ${BLAME_WINDOW_LINES} lines from here, fitted to the ` +
        "answer's token budget, with nextStartLine to continue.",
    ),
  end_line: lineNumber.optional().describe("Last line (1-based, inclusive): exactly start_line (default 1) to end_line, however long."),
  ref: z.string().optional().describe("Blame the file as of this commit instead of the working tree version."),
});

const outputSchema = z.strictObject({
  path: z.string(),
  ref: z.string().nullable(),
  startLine: lineNumber,
  endLine: countSchema,
  nextStartLine: lineNumber.nullable(),
  lines: z.array(z.strictObject({ line: lineNumber, hash: z.string(), originalLine: lineNumber, content: z.string() })),
  commits: z.record(
    z.string(),
    z.strictObject({
      hash: z.string(),
      author: z.string(),
      authorEmail: z.string(),
      authorTime: z.string().nullable(),
      committer: z.string(),
      committerEmail: z.string(),
      committerTime: z.string().nullable(),
      summary: z.string(),
      filename: z.string(),
      boundary: z.boolean(),
      uncommitted: z.boolean(),
    }),
  ),
  shallowBoundary: z.array(z.string()),
});
type _OutputMatchesData = Assert<Exact<z.output<typeof outputSchema>, GitBlameData>>;

export const gitBlame = defineTool({
  name: "git_blame",
  title: "Git blame",
  description:
    "Show which commit, author and date last changed each line of a file, optionally for a line range or as of " +
    "a commit (without end_line: a window of lines from start_line, with nextStartLine to continue). Use it to find " +
    "why and when code was written, then git_show the commit. Prefer this over " +
    "`git blame` in a shell: output is structured, and no ignore-revs file or textconv from config is used.",
  keywords: ["git", "blame", "annotate", "who", "author", "line", "history", "why", "origin"],
  permission: "read-only",
  requires: "repository",
  inputSchema,
  outputSchema,
  async run(input, context) {
    const repo = await context.repo();
    const target = await resolveWorkspacePath(repo, input.path);
    if (input.ref === undefined)
      repo.requireWorkTree("git_blame of the working tree's version", 'Pass ref (e.g. "HEAD") to blame the file as committed.');
    const ref = input.ref === undefined ? null : await resolveCommit(repo, input.ref, "ref");
    if (input.start_line !== undefined && input.end_line !== undefined && input.start_line > input.end_line) {
      const lines = await lineCount(repo, target, ref);
      throw new GitctxError(
        "invalid_input",
        `start_line (${input.start_line}) is after end_line (${input.end_line}).`,
        `Give start_line <= end_line${lines === undefined ? "" : ` between 1 and ${lines} (${showPath(input.path)} has ${plural(lines, "line")})`}, or only start_line for a window from there.`,
      );
    }
    const span: Span = {
      start: input.start_line ?? 1,
      end: input.end_line,
      defaulted: input.start_line === undefined && input.end_line === undefined,
    };
    // lstat: a symlink is blamed as git tracks it (its target text), wherever or whether it points.
    if (ref === null && target.exists && (await lstat(target.absolute)).isDirectory()) {
      throw new GitctxError("invalid_input", `${showPath(input.path)} is a directory; blame needs a file.`, "Pass a file inside it.");
    }
    // The revisions blame.ignoreRevsFile names (the user's or the repository's), from a checked private copy.
    const ignored = await ignoreRevsFor(repo);
    let parsed: ParsedBlame;
    try {
      parsed = ref === null ? await blameAtHead(repo, target, span, ignored.args) : await runBlame(repo, target, ref, span, ignored.args, input.ref);
    } finally {
      await ignored.release();
    }
    const withNotes = (text: string): string => [text, ...ignored.notes.map((note) => `Note: ${note}`)].join("\n");

    // Names relative to the workspace root, like every path a caller gives or gets back.
    const workspace = repo.paths.prefix;
    const fromRoot = (name: string): string => (workspace === "" ? name : posix.relative(workspace, name));
    for (const commit of Object.values(parsed.commits)) commit.filename = fromRoot(commit.filename);
    const selected = selectLines(parsed.lines, span, target.input);
    const shallow = new Set(repo.shallowBoundary());
    const windowOf = (count: number): GitBlameData => {
      const lines = selected.slice(0, count);
      const used = new Set(lines.map((line) => line.hash));
      const more = span.end === undefined && count < selected.length;
      return {
        path: target.input,
        ref,
        startLine: lines[0]?.line ?? span.start,
        endLine: lines.at(-1)?.line ?? span.start - 1,
        nextStartLine: more ? (lines.at(-1)?.line ?? span.start - 1) + 1 : null,
        lines,
        commits: Object.fromEntries(Object.entries(parsed.commits).filter(([hash]) => used.has(hash))),
        shallowBoundary: [...used].filter((hash) => shallow.has(hash)),
      };
    };
    const current = fromRoot(target.pathspec);
    if (span.end !== undefined) {
      const data = windowOf(selected.length);
      return { data, text: renderBlame(data, current) };
    }
    // The window: at most BLAME_WINDOW_LINES lines, as many as fit the budget.
    const most = Math.min(selected.length, BLAME_WINDOW_LINES);
    const fitted = await largestFitting((count) => withNotes(renderBlame(windowOf(count), current)), Math.min(1, most), most, measure());
    return { data: windowOf(fitted.k), text: fitted.text };
  },
});

/** The lines asked for: `start` to `end` when the caller gave an end, else a window from `start`. */
interface Span {
  start: number;
  end: number | undefined;
  /** Neither bound given: an empty file is an empty answer rather than a range past its end. */
  defaulted: boolean;
}

async function runBlame(
  repo: Repository,
  target: WorkspacePath,
  ref: string | null,
  span: Span,
  ignoreRevs: readonly string[],
  refText?: string,
): Promise<ParsedBlame> {
  // A window asks for one line more than it can return, so that a full window knows whether more follow.
  const range = `-L${span.start},${span.end ?? `+${BLAME_WINDOW_LINES + 1}`}`;
  // blame rejects --end-of-options on git 2.39: the revision is an object id and the path follows `--`.
  const args = ["--porcelain", ...ignoreRevs, range, ...(ref === null ? [] : [ref]), "--", target.pathspec];
  const result = await repo.git("blame", args, { fieldLimit: LINE_FIELDS });
  if (result.exitCode !== 0) {
    // `-L1,...` fails on an empty file, which has nothing to blame but is no error when no line was asked for.
    if (span.defaulted && /has only 0 lines/.test(result.stderr)) return { lines: [], commits: {} };
    throw blameError(result.stderr, target.input, refText);
  }
  return parseBlamePorcelain(result.stdout);
}

/** Lines of the file as blamed (the working tree's, or at `ref`); `undefined` when it cannot be read. */
async function lineCount(repo: Repository, target: WorkspacePath, ref: string | null): Promise<number | undefined> {
  let lines = 0;
  let last = 0x0a;
  const count = (bytes: Buffer): void => {
    for (let at = bytes.indexOf(0x0a); at !== -1; at = bytes.indexOf(0x0a, at + 1)) lines++;
    if (bytes.length > 0) last = bytes[bytes.length - 1]!;
  };
  if (ref === null) {
    // Counted a chunk at a time, never held: the file is the repository's, of any size or kind.
    const read = target.exists ? await streamRegularFile(target.absolute, MAX_WORK_TREE_FILE_BYTES, count) : undefined;
    if (read === undefined || read.cut) return undefined;
  } else {
    const blob = await repo.git("cat-file", ["blob", `${ref}:${target.pathspec}`]);
    if (blob.exitCode !== 0) return undefined;
    count(blob.bytes);
  }
  return last !== 0x0a ? lines + 1 : lines;
}

/** Blame as the work tree has it; asks whether HEAD exists only when git could not blame. */
async function blameAtHead(repo: Repository, target: WorkspacePath, span: Span, ignoreRevs: readonly string[]): Promise<ParsedBlame> {
  try {
    return await runBlame(repo, target, null, span, ignoreRevs);
  } catch (error) {
    if ((await resolveHead(repo)) === undefined) return blameWithoutHistory(repo, target, span);
    throw error;
  }
}

/**
 * Before the first commit git cannot blame at all ("no such ref: HEAD"), yet the answer is plain: every line
 * of a file git tracks (staged) is not committed yet. Read it as git blame would: the working tree version.
 */
async function blameWithoutHistory(repo: Repository, target: WorkspacePath, span: Span): Promise<ParsedBlame> {
  const listed = await repo.git("ls-files", ["-z", "--", target.pathspec]);
  if (listed.exitCode !== 0) throw gitFailure("git ls-files", listed.stderr);
  if (!target.exists || !listed.stdout.split("\0").includes(target.pathspec)) {
    throw new GitctxError(
      "path_not_found",
      `${showPath(target.input)} is not a file git tracks: the repository has no commits yet and it is not staged.`,
      "Stage it (git add) to blame it, or check the path with git_status.",
    );
  }
  const info = await lstat(target.absolute);
  // Never a plain readFile: a FIFO put where the staged file was would block the call forever.
  const read = info.isSymbolicLink() ? undefined : await readWholeRegularFile(target.absolute, MAX_WORK_TREE_FILE_BYTES);
  if (read?.kind === "too_large") {
    throw new GitctxError(
      "too_large",
      `${showPath(target.input)} is ${describeSize(read.size)}, more than the ${describeSize(MAX_WORK_TREE_FILE_BYTES)} gitctx blames without history.`,
      "Blame a smaller file, or commit first and pass start_line and end_line for the lines you need.",
    );
  }
  const bytes = read?.bytes;
  if (!info.isSymbolicLink() && bytes === undefined) {
    throw new GitctxError(
      "invalid_input",
      `${showPath(target.input)} is not a regular file in the working tree (a FIFO, socket or device?); blame needs a file.`,
      "Pass a regular file git tracks.",
    );
  }
  const content = bytes ?? Buffer.from(await readlink(target.absolute));
  const hash = "0".repeat(await objectIdLength(repo));
  const commit: BlameCommit = {
    hash,
    author: "Not Committed Yet",
    authorEmail: "not.committed.yet",
    authorTime: null,
    committer: "Not Committed Yet",
    committerEmail: "not.committed.yet",
    committerTime: null,
    summary: `Version of ${target.pathspec} from ${target.pathspec}`,
    filename: target.pathspec,
    boundary: false,
    uncommitted: true,
  };
  const lines = spanLines(content, span).map(({ line, text }) => ({ line, hash, originalLine: line, content: text }));
  return { lines, commits: lines.length === 0 ? {} : { [hash]: commit } };
}

/**
 * The lines of `content` that `span` asks for (a window's one line more included), and the file's last line, which
 * tells `selectLines` how long the file is: only those become objects, however many lines the file has.
 */
function spanLines(content: Buffer, span: Span): Array<{ line: number; text: string }> {
  const end = span.end ?? span.start + BLAME_WINDOW_LINES;
  const picked: Array<{ line: number; text: string }> = [];
  let line = 0;
  let at = 0;
  let last: { line: number; start: number; stop: number } | undefined;
  // A final newline ends the last line; it starts none.
  while (at < content.length) {
    const newline = content.indexOf(0x0a, at);
    const stop = newline === -1 ? content.length : newline;
    line++;
    if (line >= span.start && line <= end) picked.push({ line, text: content.toString("utf8", at, stop) });
    last = { line, start: at, stop };
    at = stop + 1;
  }
  if (last !== undefined && (last.line < span.start || last.line > end))
    picked.push({ line: last.line, text: content.toString("utf8", last.start, last.stop) });
  return picked;
}

/** 40 hex digits for SHA-1 repositories, 64 for SHA-256 ones. */
async function objectIdLength(repo: Repository): Promise<number> {
  const result = await repo.git("rev-parse", ["--show-object-format"]);
  return result.stdout.trim() === "sha256" ? 64 : 40;
}

/**
 * Applies the caller's bounds to what git returned (git clamps an end past the end of the file; an agent
 * asking for lines that do not exist should know) and, for a file without history, does the cutting itself.
 * A window keeps one line beyond it when there is one: it tells that more follow.
 */
function selectLines(lines: BlameLine[], span: Span, path: string): BlameLine[] {
  const lastLine = lines.at(-1)?.line ?? 0;
  if (!span.defaulted && (span.start > lastLine || (span.end !== undefined && span.end > lastLine))) throw pastTheEnd(path, lastLine);
  const end = span.end ?? span.start + BLAME_WINDOW_LINES;
  return lines.filter((line) => line.line >= span.start && line.line <= end);
}

function blameError(stderr: string, path: string, ref: string | undefined): GitctxError {
  const tooShort = /has only (\d+) lines?/.exec(stderr);
  if (tooShort) return pastTheEnd(path, Number(tooShort[1]));
  if (/Cannot lstat/i.test(stderr)) {
    return new GitctxError(
      "path_not_found",
      `${showPath(path)} does not exist in the working tree.`,
      'To blame the last committed version, pass ref="HEAD"; git_log with path shows when it changed.',
    );
  }
  if (/no such path|does not exist|cannot stat path|no such file/i.test(stderr)) {
    return new GitctxError(
      "path_not_found",
      ref === undefined ? `${showPath(path)} is not a file git tracks.` : `${showPath(path)} does not exist at ${ref}.`,
      "Check the path with git_status or git_show on its directory; blame needs a file git tracks.",
    );
  }
  return gitFailure("git blame", stderr);
}

function pastTheEnd(path: string, lineCount: number): GitctxError {
  return new GitctxError(
    "invalid_input",
    `${showPath(path)} has only ${lineCount} line${lineCount === 1 ? "" : "s"}; the requested range goes past its end.`,
    lineCount === 0 ? "The file is empty: there is nothing to blame." : `Use line numbers between 1 and ${lineCount}.`,
  );
}

/** A line longer than this is shown cut in the text (its whole content stays in the data). */
const MAX_LINE_CHARS = 2_000;

function clipLine(content: string): string {
  if (content.length <= MAX_LINE_CHARS) return content;
  return `${Array.from(content.slice(0, MAX_LINE_CHARS + 1))
    .slice(0, MAX_LINE_CHARS)
    .join("")}... [line cut: ${content.length} characters]`;
}

/** `currentName` is the file's name now, so lines that come from before a rename can say what it was called. */
function renderBlame(data: GitBlameData, currentName: string): string {
  const where = data.ref === null ? "working tree" : data.ref.slice(0, 12);
  if (data.lines.length === 0) return `${showPath(data.path)} (${where}) is empty: nothing to blame.`;
  const short = (hash: string): string => hash.slice(0, 8);
  const shallow = new Set(data.shallowBoundary);
  const commits = Object.values(data.commits).map((commit) => {
    if (commit.uncommitted) return `${short(commit.hash)} not committed yet (changes in the working tree)`;
    const renamed = commit.filename !== currentName ? ` (as ${showPath(commit.filename)})` : "";
    const stop = shallow.has(commit.hash) ? " (shallow boundary: history stops here, so its lines marked ^ may be older)" : "";
    return `${short(commit.hash)} ${commit.authorTime?.slice(0, 10)} ${showValue(commit.author)}: ${showValue(commit.summary)}${renamed}${stop}`;
  });
  const width = String(data.endLine).length;
  // git's own mark for a line blame could not follow further back.
  const shown = (hash: string): string => (shallow.has(hash) ? `^${short(hash).slice(0, 7)}` : short(hash));
  const lines = data.lines.map((line) => `${shown(line.hash)} ${String(line.line).padStart(width)}| ${clipLine(line.content)}`);
  const more =
    data.nextStartLine === null
      ? []
      : [
          `[lines ${data.startLine}-${data.endLine} shown; the file goes on. Call git_blame with start_line=${data.nextStartLine} and the same ` +
            "path and ref for the next lines, or give end_line for an exact range.]",
        ];
  return [
    `Blame of ${showPath(data.path)} (${where}), lines ${data.startLine}-${data.endLine}, ${plural(commits.length, "commit")}:`,
    ...commits,
    "",
    ...lines,
    ...more,
  ].join("\n");
}

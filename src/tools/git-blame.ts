import { z } from "zod";
import { GitctxError } from "../errors.js";
import { gitFailure, resolveCommit, resolveWorkspacePath } from "../git/args.js";
import { parseBlamePorcelain, type BlameCommit, type BlameLine } from "../git/parse/blame.js";
import { showPath } from "../text.js";
import { pathField } from "./fields.js";
import { defineTool } from "./tool.js";

export interface GitBlameData {
  path: string;
  /** The commit blamed from, or `null` for the working tree version of the file. */
  ref: string | null;
  startLine: number;
  endLine: number;
  lines: BlameLine[];
  /** Each commit once, keyed by hash, so metadata is not repeated per line. */
  commits: Record<string, BlameCommit>;
}

const lineNumber = z.number().int().min(1);

const inputSchema = z.strictObject({
  path: pathField.describe("The file to blame, relative to the workspace root."),
  start_line: lineNumber.optional().describe("First line (1-based). Alone: from here to the end of the file."),
  end_line: lineNumber.optional().describe("Last line (1-based, inclusive). Alone: from line 1 to here."),
  ref: z.string().optional().describe("Blame the file as of this commit instead of the working tree version."),
});

export const gitBlame = defineTool({
  name: "git_blame",
  title: "Git blame",
  description:
    "Show which commit, author and date last changed each line of a file, optionally for a line range or as of " +
    "a commit. Use it to find why and when code was written, then git_show the commit. Prefer this over " +
    "`git blame` in a shell: output is structured, and no ignore-revs file or textconv from config is used.",
  keywords: ["git", "blame", "annotate", "who", "author", "line", "history", "why", "origin"],
  permission: "read-only",
  inputSchema,
  async run(input, { repo }) {
    if (input.start_line !== undefined && input.end_line !== undefined && input.start_line > input.end_line) {
      throw new GitctxError(
        "invalid_input",
        `start_line (${input.start_line}) is after end_line (${input.end_line}).`,
        "Give start_line <= end_line, or only one of them.",
      );
    }
    const target = await resolveWorkspacePath(repo, input.path);
    const ref = input.ref === undefined ? null : await resolveCommit(repo, input.ref, "ref");
    const start = input.start_line ?? 1;
    const range = input.end_line === undefined ? `${start},` : `${start},${input.end_line}`;
    // blame rejects --end-of-options on git 2.39: the revision is an object id and the path follows `--`.
    const args = ["--porcelain", `-L${range}`, ...(ref === null ? [] : [ref]), "--", target.pathspec];
    const result = await repo.git("blame", args);
    if (result.exitCode !== 0) throw blameError(result.stderr, input.path, input.ref);

    const parsed = parseBlamePorcelain(result.stdout);
    const lastLine = parsed.lines.at(-1)?.line ?? 0;
    // git clamps an end past the end of the file; an agent asking for lines that do not exist should know.
    if (input.end_line !== undefined && lastLine < input.end_line) throw pastTheEnd(input.path, lastLine);
    const data: GitBlameData = { path: target.input, ref, startLine: start, endLine: lastLine, ...parsed };
    return { data, text: renderBlame(data) };
  },
});

function blameError(stderr: string, path: string, ref: string | undefined): GitctxError {
  const tooShort = /has only (\d+) lines?/.exec(stderr);
  if (tooShort) return pastTheEnd(path, Number(tooShort[1]));
  if (/no such path|does not exist|cannot stat path|no such file/i.test(stderr)) {
    return new GitctxError(
      "path_not_found",
      `${showPath(path)} is not a tracked file${ref === undefined ? " in the working tree" : ` at ${ref}`}.`,
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

function renderBlame(data: GitBlameData): string {
  if (data.lines.length === 0) return `${showPath(data.path)} is empty: nothing to blame.`;
  const short = (hash: string): string => hash.slice(0, 8);
  const commits = Object.values(data.commits).map((commit) =>
    commit.uncommitted
      ? `${short(commit.hash)} not committed yet (changes in the working tree)`
      : `${short(commit.hash)} ${commit.authorTime.slice(0, 10)} ${commit.author}: ${commit.summary}`,
  );
  const width = String(data.endLine).length;
  const lines = data.lines.map((line) => `${short(line.hash)} ${String(line.line).padStart(width)}| ${line.content}`);
  const where = data.ref === null ? "working tree" : data.ref.slice(0, 12);
  return [
    `Blame of ${showPath(data.path)} (${where}), lines ${data.startLine}-${data.endLine}, ${commits.length} commit(s):`,
    ...commits,
    "",
    ...lines,
  ].join("\n");
}

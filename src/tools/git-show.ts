import * as z from "zod";
import { DEFAULT_MAX_BYTES, readShownCommit, type PatchWindow } from "../diff/read-patch.js";
import { renderPatchWindow, renderSummary, renderTotals } from "../diff/render.js";
import { GitctxError } from "../errors.js";
import { checkRevisionText, commitExpression, missingRevision, resolveCommit, resolveWorkspacePath } from "../git/args.js";
import { gitFailure } from "../git/failures.js";
import { attachNotes, noteLines } from "../git/notes.js";
import { COMMIT_FIELD_COUNT, commitFormat, parseCommits, type CommitInfo, type Person } from "../git/parse/log.js";
import { parseTagObject } from "../git/parse/tag.js";
import { parseLsTree, type TreeEntry } from "../git/parse/tree.js";
import type { Repository } from "../git/repository.js";
import { contentLines, plural, showPath, showValue } from "../text.js";
import { DEFAULT_TEXT_BUDGET, fittingBytes, fittingPrefix, largestFitting, measure } from "./budget.js";
import { fileLimitField, fileOffsetField, pageFiles, patchFitter, type FileListRequest } from "./diff-text.js";
import { copiesField, maxBytesField, offsetField, pathField } from "./fields.js";
import { commitInfoSchema, countSchema, patchWindowSchema, personSchema, type Assert, type Exact } from "./outputs.js";
import { defineTool } from "./tool.js";
import { FIELD_LIMIT_BYTES, NUL_FIELDS } from "../git/run.js";

export type ShowFormat = "patch" | "stat" | "metadata";

/** A commit with its first-parent diff (`patch`/`stat`) or alone (`metadata`). */
export interface ShowCommitData {
  kind: "commit";
  format: ShowFormat;
  commit: CommitInfo;
  /** The summary and patch window; `null` for `metadata`. The diff of a merge is against its first parent. */
  diff: PatchWindow | null;
  /**
   * The commit is where a shallow clone's history stops: its parents are not in the repository, so git lists it
   * without parents and diffs it like a first commit (every file added).
   */
  shallowBoundary: boolean;
  /**
   * The annotated tags `commit` names the commit through, outermost first (`git show v1.0` prints each before the
   * commit; a tag of a tag gives two); empty for any other revision, and for a tag named by its object id or
   * through an expression (`v1.0^{tag}`), which are not looked up.
   */
  tags: ShowTag[];
}

/** An annotated tag as `git show` prints it: its name, tagger and message (release notes, a signature block). */
export interface ShowTag {
  name: string;
  /** The tag object's id. */
  oid: string;
  /** `null` for an old tag made without one. */
  tagger: Person | null;
  message: string;
  /** The message was longer than a field may be (see FIELD_LIMIT_BYTES) and is cut, with a mark. */
  truncated: boolean;
}

/** One path as it was at a commit. */
export interface ShowFileData {
  kind: "file";
  commit: string;
  path: string;
  type: "file" | "symlink" | "directory" | "submodule";
  mode: string;
  /** Blob size in bytes (file and symlink). */
  size: number | null;
  binary: boolean;
  /** File text (the cut part), or the link target of a symlink; `null` when binary or not a blob. */
  content: string | null;
  /** One page of the names under a directory (`/`-suffixed for subdirectories), from `fileOffset` on. */
  entries: string[] | null;
  /** How many names the directory has in all (the page may hold fewer); `null` when not a directory. */
  entryCount: number | null;
  /** Index of the page's first name among all of them. */
  fileOffset: number;
  /** Pass as `fileOffset` for the next page of names; `null` when nothing follows. */
  nextFileOffset: number | null;
  /** Commit a submodule points to. */
  submoduleCommit: string | null;
  offset: number;
  returnedBytes: number;
  truncated: boolean;
  nextOffset: number | null;
}

/**
 * A tree or a blob that `commit` names rather than a commit (`HEAD:src`, `HEAD^{tree}`, an object id, or an
 * annotated tag of a tree or blob): what `git show` prints for it, the tags on the way first, then a tree's names
 * (`/`-suffixed for subtrees) paged by `fileOffset`, or a blob's content windowed like a file's.
 */
export interface ShowObjectData extends Omit<ShowFileData, "kind" | "commit" | "path" | "type" | "mode" | "submoduleCommit"> {
  kind: "object";
  /** The tree's or blob's id. */
  oid: string;
  type: "tree" | "blob";
  /** The annotated tags `commit` reached it through, outermost first (a tag of a tag gives two); empty without. */
  tags: ShowTag[];
}

export type GitShowData = ShowCommitData | ShowFileData | ShowObjectData;

const inputSchema = z.strictObject({
  commit: z
    .string()
    .describe(
      "The commit to show: hash, branch, tag or expression such as HEAD~1. A tree or blob (HEAD:src, a tag of one) is shown as git show shows it: its tags, then its names or content.",
    ),
  path: pathField.optional().describe("Show this file (or directory listing) as it was at the commit instead of the commit."),
  stat: z.boolean().default(false).describe('Legacy: like format="stat"; it cannot be combined with another format.'),
  copies: copiesField,
  format: z
    .enum(["patch", "stat", "metadata"])
    .optional()
    .describe(
      "patch (default): message and diff (+/- lines counted for the files in the returned part); stat: message and every file's +/- lines, no patch; metadata: message only.",
    ),
  maxBytes: maxBytesField.optional(),
  offset: offsetField.optional(),
  fileOffset: fileOffsetField
    .default(0)
    .describe("Skip this many files of the commit's file list (or names of a directory) first: pass a result's nextFileOffset."),
  fileLimit: fileLimitField
    .optional()
    .describe("Most files of the commit's file list (or names of a directory) to list. Default: as many as fit the answer's token budget."),
});

const tagSchema = z.strictObject({
  name: z.string(),
  oid: z.string(),
  tagger: personSchema.nullable(),
  message: z.string(),
  truncated: z.boolean(),
});

const outputSchema = z.discriminatedUnion("kind", [
  z.strictObject({
    kind: z.literal("commit"),
    format: z.enum(["patch", "stat", "metadata"]),
    commit: commitInfoSchema,
    diff: patchWindowSchema.nullable(),
    shallowBoundary: z.boolean(),
    tags: z
      .array(tagSchema)
      .describe(
        "The annotated tags commit names the commit through by name, outermost first (each tagger and message, as git show prints them first); empty for any other revision.",
      ),
  }),
  z.strictObject({
    kind: z.literal("file"),
    commit: z.string(),
    path: z.string(),
    type: z.enum(["file", "symlink", "directory", "submodule"]),
    mode: z.string(),
    size: countSchema.nullable(),
    binary: z.boolean(),
    content: z.string().nullable(),
    entries: z.array(z.string()).nullable(),
    entryCount: countSchema.nullable(),
    fileOffset: countSchema,
    nextFileOffset: countSchema.nullable(),
    submoduleCommit: z.string().nullable(),
    offset: countSchema,
    returnedBytes: countSchema,
    truncated: z.boolean(),
    nextOffset: countSchema.nullable(),
  }),
  z.strictObject({
    kind: z.literal("object"),
    oid: z.string(),
    type: z.enum(["tree", "blob"]),
    tags: z.array(tagSchema),
    size: countSchema.nullable(),
    binary: z.boolean(),
    content: z.string().nullable(),
    entries: z.array(z.string()).nullable(),
    entryCount: countSchema.nullable(),
    fileOffset: countSchema,
    nextFileOffset: countSchema.nullable(),
    offset: countSchema,
    returnedBytes: countSchema,
    truncated: z.boolean(),
    nextOffset: countSchema.nullable(),
  }),
]);
type _OutputMatchesData = Assert<Exact<z.output<typeof outputSchema>, GitShowData>>;

const BINARY_SNIFF_BYTES = 8000;
const MAX_LINK_BYTES = 4096;

export const gitShow = defineTool<"git_show", typeof inputSchema, GitShowData>({
  name: "git_show",
  title: "Git show",
  description:
    "Show one commit (message, author, dates and its diff against the first parent: the file list paged with " +
    "fileOffset, the patch capped with an offset to continue; an annotated tag's tagger and message first), or a file or directory exactly as it was at a commit " +
    "(path). By default the answer fits 10,000 tokens. Prefer this over `git show` in a " +
    "shell: output is structured and bounded, and no textconv or external diff can run.",
  keywords: ["git", "show", "commit", "message", "file at revision", "old version", "cat", "contents", "patch"],
  permission: "read-only",
  requires: "repository",
  inputSchema,
  outputSchema,
  async run(input, context) {
    const repo = await context.repo();
    if (input.stat && input.format !== undefined && input.format !== "stat") {
      throw new GitctxError(
        "invalid_input",
        `stat=true asks for format "stat", which contradicts format "${input.format}".`,
        `Pass only format (format="stat" is what stat=true means), or drop format.`,
      );
    }
    const format: ShowFormat = input.format ?? (input.stat ? "stat" : "patch");
    if (input.path !== undefined && input.format === "metadata") {
      throw new GitctxError(
        "invalid_input",
        'format "metadata" describes a commit, not a file, so it cannot be combined with path.',
        "Omit path to see the commit's metadata, or omit format to read the file at that commit.",
      );
    }
    const window: WindowRequest = {
      maxBytes: input.maxBytes ?? DEFAULT_MAX_BYTES,
      offset: input.offset ?? 0,
      fit: input.maxBytes === undefined,
      list: { fileOffset: input.fileOffset, fileLimit: input.fileLimit },
    };
    if (input.path !== undefined) {
      const oid = await resolveCommit(repo, input.commit, "commit");
      const data = await showFile(repo, oid, input.path, window, input.commit);
      return { data, text: renderFile(data, fileView(data, input.commit), input.maxBytes) };
    }
    let shown: { data: ShowCommitData; text: string };
    try {
      shown = await showCommit(repo, input.commit, format, window, input.copies);
    } catch (error) {
      // Not a commit: git show still shows a tree or a blob (HEAD:src, an object id, a tag of either).
      if (!(error instanceof GitctxError) || error.code !== "bad_revision") throw error;
      const object = await showObject(repo, input.commit, window);
      if (object === undefined) throw error;
      return object;
    }
    return { data: shown.data, text: shown.text };
  },
});

interface WindowRequest {
  maxBytes: number;
  offset: number;
  /** The caller gave no maxBytes: the window ends where the token budget does. */
  fit: boolean;
  list: FileListRequest;
}

/** What of the answer a commit's message may take when a diff follows it (all of the budget with format=metadata). */
const MESSAGE_SHARE = 4_000;

/**
 * One `git show` of the caller's revision: it resolves it, prints the commit's fields, then its diff against the
 * first parent (a root commit against nothing), so all three describe the same commit even if a ref moves.
 */
async function showCommit(
  repo: Repository,
  revision: string,
  format: ShowFormat,
  window: WindowRequest,
  copies: boolean,
): Promise<{ data: ShowCommitData; text: string }> {
  checkRevisionText(revision, "commit");
  const named = ["--end-of-options", commitExpression(revision)];
  const workspace = repo.paths.prefix;
  // Looked up beside the commit (a process of its own, run at the same time). Should the show fail first (a bad
  // revision, the caller's abort), this lookup's own failure must not go unhandled.
  const tagged = tagNamed(repo, revision);
  tagged.catch(() => undefined);
  if (format === "metadata") {
    const meta = await repo.git("show", ["-s", "-z", commitFormat(repo.logMailmap), ...named], { fieldLimit: NUL_FIELDS });
    const commit = meta.exitCode === 0 ? parseCommits(meta.stdout)[0] : undefined;
    if (commit === undefined) throw await missingRevision(repo, revision, "commit");
    await attachNotes(repo, [commit]);
    const tags = tagsOf(await tagged, commit);
    const data: ShowCommitData = { kind: "commit", format, commit, diff: null, shallowBoundary: isBoundary(repo, commit), tags };
    const message = await renderMessage(commit, DEFAULT_TEXT_BUDGET - TAG_SHARE, data.shallowBoundary);
    return { data, text: withTags(await renderTags(tags), message) };
  }
  const messageOf = (fields: readonly string[]): CommitInfo | undefined => parseCommits(`${fields.join("\0")}\0`)[0];
  let shown;
  try {
    shown = await readShownCommit(repo, {
      revisionArgs: [commitFormat(repo.logMailmap), "--diff-merges=first-parent", ...named],
      leadingFields: COMMIT_FIELD_COUNT,
      findCopies: copies,
      // As in git_diff: a workspace below the top level sees only its own files, named relative to it.
      relativeTo: workspace,
      pathspecs: [],
      statOnly: format === "stat",
      maxBytes: window.maxBytes,
      offset: window.offset,
      ...(window.fit
        ? {
            fitPatch: patchFitter((fields) => {
              const commit = messageOf(fields);
              return commit === undefined ? "" : renderMessage(commit, MESSAGE_SHARE, isBoundary(repo, commit));
            }, window.list),
          }
        : {}),
    });
  } catch (error) {
    // git names the revision it could not use; anything else (a timeout, a broken object) stays as it is.
    if (
      error instanceof GitctxError &&
      error.code === "git_failed" &&
      /unknown revision|bad revision|expected commit type|invalid object name/i.test(error.message)
    ) {
      throw await missingRevision(repo, revision, "commit");
    }
    throw error;
  }
  const commit = messageOf(shown.fields);
  if (commit === undefined) throw await missingRevision(repo, revision, "commit");
  await attachNotes(repo, [commit]);
  const shallowBoundary = isBoundary(repo, commit);
  const tags = tagsOf(await tagged, commit);
  const message = withTags(await renderTags(tags), await renderMessage(commit, MESSAGE_SHARE, shallowBoundary));
  const patch = renderShowPatch(shown.window, commit, window.fit ? undefined : window.maxBytes);
  const diff = await pageFiles(shown.window, window.list, [message, renderTotals(shown.window), patch].join("\n\n"));
  const data: ShowCommitData = { kind: "commit", format, commit, diff, shallowBoundary, tags };
  const lines = [message, "", renderSummary(diff, `git_show with commit=${commit.shortHash}`)];
  // Otherwise "0 files changed" would read as an empty commit.
  if (workspace !== "") lines.push(`(only files under the workspace root ${showPath(workspace)} are shown)`);
  if (patch !== "") lines.push("", patch);
  return { data, text: lines.join("\n") };
}

/** The workspace root relative to the top level, `/`-separated; `""` when they are the same directory. */

async function showFile(repo: Repository, oid: string, path: string, window: WindowRequest, commitInput: string): Promise<ShowFileData> {
  // The path names an entry of the commit's tree; nothing on disk is read through it, so a symlink in the
  // work tree may point anywhere (its directories must still stay inside the workspace).
  const target = await resolveWorkspacePath(repo, path, "path", { confineLinkTarget: false });
  const listing = await repo.git("ls-tree", ["-l", "-z", oid, "--", target.pathspec]);
  if (listing.exitCode !== 0) throw gitFailure("git ls-tree", listing.stderr);
  const entry = parseLsTree(listing.stdout).find((candidate) => candidate.path === target.pathspec);
  // Every answer below sets its own type and mode.
  const base: ShowFileData = { ...emptyFile(oid), path: target.input };
  if (target.pathspec === "." || entry?.type === "tree") {
    const treeish = target.pathspec === "." ? `${oid}^{tree}` : entry!.oid;
    const children = await repo.git("ls-tree", ["-z", treeish]);
    if (children.exitCode !== 0) throw gitFailure("git ls-tree", children.stderr);
    const entries = parseLsTree(children.stdout).map((child) => (child.type === "tree" ? `${child.path}/` : child.path));
    const directory: ShowFileData = { ...base, type: "directory", mode: entry?.mode ?? "040000", entries, entryCount: entries.length };
    return pageDirectory(directory, window.list, fileView(directory, commitInput));
  }
  if (entry === undefined) {
    throw new GitctxError(
      "path_not_found",
      `${showPath(target.input)} does not exist at commit ${oid.slice(0, 12)}.`,
      "Check the path with git_show on a directory, or find when it existed with git_log and path.",
    );
  }
  if (entry.type === "commit") {
    return { ...base, type: "submodule", mode: entry.mode, submoduleCommit: entry.oid };
  }
  return readBlob(repo, { ...base, type: entry.mode === "120000" ? "symlink" : "file", mode: entry.mode }, entry, window);
}

async function readBlob(repo: Repository, data: ShowFileData, entry: TreeEntry, window: WindowRequest, reserve = 0): Promise<ShowFileData> {
  // A link target is only useful whole and is short (PATH_MAX), so it ignores the window; the cap only stops
  // a hand-made "link" blob of any size.
  const request = data.type === "symlink" ? { maxBytes: MAX_LINK_BYTES, offset: 0 } : window;
  if (data.type === "file") {
    const sniff = await repo.git("cat-file", ["blob", entry.oid], { maxBytes: BINARY_SNIFF_BYTES });
    // git's own test: a NUL byte in the first 8000 bytes makes a file binary.
    if (sniff.stdout.includes("\0")) return { ...data, size: entry.size, binary: true };
  }
  let blob = await repo.git("cat-file", ["blob", entry.oid], { maxBytes: request.maxBytes, skipBytes: request.offset });
  if (blob.truncated && blob.returnedBytes === 0) {
    // maxBytes is smaller than the character at this offset: return that one character rather than an empty
    // window whose nextOffset repeats this offset forever. A UTF-8 character is at most 4 bytes.
    blob = await repo.git("cat-file", ["blob", entry.oid], { maxBytes: 4, skipBytes: request.offset });
  }
  if (!blob.truncated && blob.exitCode !== 0) throw gitFailure("git cat-file", blob.stderr);
  let bytes = blob.bytes;
  let truncated = blob.truncated;
  if (data.type === "file" && window.fit && bytes.length > 0) {
    // A window of the default size ends where the token budget does; the next one starts exactly there.
    const kept = await fittingBytes(bytes, DEFAULT_TEXT_BUDGET - CONTENT_FRAME_TOKENS - reserve, contentLines);
    if (kept < bytes.length) {
      bytes = bytes.subarray(0, kept);
      truncated = true;
    }
  }
  return {
    ...data,
    size: entry.size,
    content: bytes.toString("utf8"),
    offset: blob.skippedBytes,
    returnedBytes: bytes.length,
    truncated,
    nextOffset: truncated ? blob.skippedBytes + bytes.length : null,
  };
}

/** Tokens of the lines around a file's content: its header and the footer saying how to continue. */
const CONTENT_FRAME_TOKENS = 250;

/** One page of a directory's names: `fileLimit` of them from `fileOffset`, or as many as fit the budget. */
async function pageDirectory(data: ShowFileData, list: FileListRequest, view: FileView, reserve = 0): Promise<ShowFileData> {
  const all = data.entries!;
  const start = Math.min(list.fileOffset, all.length);
  const page = (count: number): ShowFileData => {
    const end = start + count;
    return { ...data, entries: all.slice(start, end), fileOffset: list.fileOffset, nextFileOffset: end < all.length ? end : null };
  };
  const available = all.length - start;
  if (list.fileLimit !== undefined) return page(Math.min(list.fileLimit, available));
  const size = measure(DEFAULT_TEXT_BUDGET - reserve);
  const fitted = await largestFitting((count) => renderFile(page(count), view, undefined), Math.min(1, available), available, size);
  return page(fitted.k);
}

function isBoundary(repo: Repository, commit: CommitInfo): boolean {
  return repo.shallowBoundary().includes(commit.hash);
}

/** The commit's header and message as `git show` prints them, the message cut to `budget` tokens when longer. */
/** What of the answer a tag's message may take; the commit's message and diff have the rest. */
const TAG_SHARE = 2_000;

/** How many tags of tags git_show follows to the tree or blob at the end (git's own limit is its stack). */
const MAX_TAG_CHAIN = 32;

/**
 * The tree or blob `revision` names, read as `git show` prints it: through any annotated tags on the way (each
 * recorded), a tree's names paged like a directory's, a blob's content windowed like a file's. `undefined` when
 * the revision names no object, or one of another type (a commit, which git_show reads otherwise), and in a
 * workspace below the repository's top level.
 */
async function showObject(repo: Repository, revision: string, window: WindowRequest): Promise<{ data: ShowObjectData; text: string } | undefined> {
  // A workspace below the top level sees only its own files: a tree or blob named by a revision (HEAD:other/file,
  // a tag of the root tree) could be anywhere in the repository, so it is not read there.
  if (repo.paths.prefix !== "") return undefined;
  const resolved = await repo.git("rev-parse", ["--verify", "-q", "--end-of-options", revision]);
  let oid = resolved.stdout.trim();
  if (resolved.exitCode !== 0 || !OBJECT_ID.test(oid)) return undefined;
  const named = await objectType(repo, oid);
  const followed = named === undefined ? undefined : await followTags(repo, oid, named.type);
  if (followed === undefined) return undefined;
  const { tags } = followed;
  oid = followed.oid;
  // The type the last tag declares is checked against the object itself, which also gives its size.
  const checked = tags.length === 0 ? named : await objectType(repo, oid);
  if (checked === undefined || (checked.type !== "tree" && checked.type !== "blob")) return undefined;
  // The tags' blocks come first and share TAG_SHARE; the names or the content get the rest of the budget.
  const tagText = await renderTags(tags);
  const reserve = tags.length === 0 ? 0 : await measure().tokens(`${tagText}\n\n`);
  const view = objectView(checked.type === "tree" ? "tree" : "blob", oid, revision, tags);
  const answer = (file: ShowFileData, type: "tree" | "blob") => {
    const data = asObject(file, oid, type, tags);
    const body = renderFile(file, view, window.fit ? undefined : window.maxBytes);
    return { data, text: tags.length === 0 ? body : `${tagText}\n\n${body}` };
  };
  if (checked.type === "tree") {
    // Its names as git show lists them, subtrees with a slash.
    const children = await repo.git("ls-tree", ["-z", oid]);
    if (children.exitCode !== 0) throw gitFailure("git ls-tree", children.stderr);
    const entries = parseLsTree(children.stdout).map((child) => (child.type === "tree" ? `${child.path}/` : child.path));
    const listing: ShowFileData = { ...emptyFile(oid), type: "directory", mode: "040000", entries, entryCount: entries.length };
    return answer(await pageDirectory(listing, window.list, view, reserve), "tree");
  }
  const entry: TreeEntry = { mode: "100644", type: "blob", oid, size: checked.size, path: "" };
  return answer(await readBlob(repo, emptyFile(oid), entry, window, reserve), "blob");
}

/** An object's type and size in bytes; `undefined` when it is missing. */
async function objectType(repo: Repository, oid: string): Promise<{ type: string; size: number } | undefined> {
  const checked = await repo.git("cat-file", ["--batch-check=%(objecttype) %(objectsize)"], { input: Buffer.from(`${oid}\n`) });
  const [type, size] = checked.stdout.trim().split(" ");
  if (checked.exitCode !== 0 || type === undefined || size === undefined || !/^\d+$/.test(size)) return undefined;
  return { type, size: Number(size) };
}

/** A file answer with nothing read yet: filled in for a path at a commit, or for a tree or blob read as a directory or a file. */
function emptyFile(oid: string): ShowFileData {
  return {
    kind: "file",
    commit: oid,
    path: "",
    type: "file",
    mode: "100644",
    size: null,
    binary: false,
    content: null,
    entries: null,
    entryCount: null,
    fileOffset: 0,
    nextFileOffset: null,
    submoduleCommit: null,
    offset: 0,
    returnedBytes: 0,
    truncated: false,
    nextOffset: null,
  };
}

function asObject(file: ShowFileData, oid: string, type: "tree" | "blob", tags: ShowTag[]): ShowObjectData {
  const { kind: _kind, commit: _commit, path: _path, type: _type, mode: _mode, submoduleCommit: _submodule, ...rest } = file;
  return { kind: "object", oid, type, tags, ...rest };
}

const OBJECT_ID = /^[0-9a-f]{40}(?:[0-9a-f]{24})?$/;

/** An annotated tag object read and parsed, its message cut (with a mark) where a field must end. */
async function readTag(repo: Repository, oid: string): Promise<{ tag: ShowTag; type: string; object: string } | undefined> {
  const read = await repo.git("cat-file", ["tag", oid], { maxBytes: FIELD_LIMIT_BYTES });
  const parsed = read.exitCode === 0 || read.truncated ? parseTagObject(read.stdout) : undefined;
  if (parsed === undefined) return undefined;
  const message = read.truncated ? `${parsed.message} \u2026 [the rest of the tag message is not shown]` : parsed.message;
  return {
    tag: { name: parsed.name, oid, tagger: parsed.tagger, message, truncated: read.truncated },
    type: parsed.type,
    object: parsed.object,
  };
}

/** The annotated tags on the way from an object to what they tag, outermost first, and where they end. */
interface FollowedTags {
  tags: ShowTag[];
  /** The object at the end of the chain, and its type as the last tag declares it (the caller checks it). */
  oid: string;
  type: string;
}

/**
 * Follows annotated tags from `oid` (of type `type`) to the first object that is not one, as git show does:
 * `undefined` when a tag cannot be read or the chain is longer than MAX_TAG_CHAIN.
 */
async function followTags(repo: Repository, oid: string, type: string): Promise<FollowedTags | undefined> {
  const tags: ShowTag[] = [];
  for (let depth = 0; type === "tag"; depth++) {
    if (depth >= MAX_TAG_CHAIN) return undefined;
    const found = await readTag(repo, oid);
    if (found === undefined || !OBJECT_ID.test(found.object)) return undefined;
    tags.push(found.tag);
    oid = found.object;
    type = found.type;
  }
  return { tags, oid, type };
}

/** The annotated tags `revision` names by name, and the commit they end at; `null` for a commit, a branch, an expression. */
async function tagNamed(repo: Repository, revision: string): Promise<FollowedTags | null> {
  if (!(await mayNameTag(repo, revision))) return null;
  const checked = await repo.git("cat-file", ["--batch-check=%(objectname) %(objecttype)"], { input: Buffer.from(`${revision}\n`) });
  const [oid, type] = checked.stdout.trim().split(" ");
  if (checked.exitCode !== 0 || type !== "tag" || oid === undefined || !OBJECT_ID.test(oid)) return null;
  return (await followTags(repo, oid, type)) ?? null;
}

/**
 * Whether `revision` may name a tag, so that asking costs a git process only then: not HEAD, not an expression
 * (`~`, `^`, `:`, `@{`), and not an object id unless a ref has that name. A name that looks like an abbreviated
 * id (`2024`) is a ref first for git too, and a full-length id is always the object.
 */
async function mayNameTag(repo: Repository, revision: string): Promise<boolean> {
  if (revision === "HEAD" || /[~^:]|@\{/.test(revision)) return false;
  if (!/^[0-9a-f]{4,64}$/i.test(revision)) return true;
  if (revision.length === 40 || revision.length === 64) return false;
  // The names git tries for a short one (refs.c `ref_rev_parse_rules`); tags are what is asked about here.
  return repo.anyRefExists([`refs/${revision}`, `refs/tags/${revision}`, `refs/heads/${revision}`, `refs/remotes/${revision}`]);
}

/**
 * The tags for the commit shown: none when they end at another object, which happens only when a tag was moved
 * between the two lookups (the commit shown is the later one).
 */
function tagsOf(found: FollowedTags | null, commit: CommitInfo): ShowTag[] {
  return found === null || found.type !== "commit" || found.oid !== commit.hash ? [] : found.tags;
}

/** The tags as `git show` prints them before what they tag, outermost first, sharing TAG_SHARE; `""` without one. */
async function renderTags(tags: readonly ShowTag[]): Promise<string> {
  const blocks = await Promise.all(tags.map((tag, i) => renderTag(tag, Math.floor(TAG_SHARE / tags.length), `tags[${i}].message`)));
  return blocks.join("\n\n");
}

/** One tag's block, its message cut to `share`. */
async function renderTag(tag: ShowTag, share: number, field: string): Promise<string> {
  const lines = [`tag ${showValue(tag.name)}`];
  if (tag.tagger !== null) lines.push(`Tagger: ${showValue(tag.tagger.name)} <${showValue(tag.tagger.email)}> ${tag.tagger.date}`);
  const body = tag.message
    .replace(/\n+$/, "")
    .split("\n")
    .map((line) => (line === "" ? "" : `    ${line}`));
  const whole = [...lines, "", ...body].join("\n");
  const size = measure(share);
  if ((await size.tokens(whole)) <= share) return whole;
  const cut = (k: number): string =>
    [
      ...lines,
      "",
      ...body.slice(0, k),
      `[tag message cut to fit the answer: showed lines 1-${k} of ${body.length}; the whole message is ${field} in this result's data]`,
    ].join("\n");
  return (await largestFitting(cut, 0, body.length, size)).text;
}

function withTags(tags: string, message: string): string {
  return tags === "" ? message : `${tags}\n\n${message}`;
}

async function renderMessage(commit: CommitInfo, budget: number, shallowBoundary: boolean): Promise<string> {
  const lines = [`commit ${commit.hash}`];
  if (commit.parents.length > 1) lines.push(`Merge: ${commit.parents.join(" ")} (diff shown against the first parent)`);
  if (shallowBoundary) {
    lines.push(
      "Shallow boundary: this clone has none of its parents, so it is shown like a first commit (every file added). The user can run git fetch --deepen=<n> for them.",
    );
  }
  const { author, committer } = commit;
  lines.push(`Author: ${showValue(author.name)} <${showValue(author.email)}> ${author.date}`);
  if (committer.name !== author.name || committer.email !== author.email || committer.date !== author.date) {
    lines.push(`Commit: ${showValue(committer.name)} <${showValue(committer.email)}> ${committer.date}`);
  }
  lines.push("", `    ${showValue(commit.subject)}`);
  // After the message, as git show prints it (cut to a share of its own, so it never crowds the message out).
  const notes = commit.notes === undefined ? [] : ["", ...noteLines(commit.notes)];
  if (commit.body === "") return [...lines, ...notes].join("\n");
  const head = lines.join("\n");
  const body = [...commit.body.split("\n").map((line) => (line === "" ? "" : `    ${line}`)), ...notes];
  const whole = [head, "", ...body].join("\n");
  const size = measure(budget);
  if ((await size.tokens(whole)) <= budget) return whole;
  const note = (shown: number): string =>
    // At column 0, where no line of the message (indented by four spaces) can be.
    `[message cut to fit the answer: showed lines 1-${shown} of ${body.length}; the whole message is the body in this result's data]`;
  const cut = (k: number): string => [head, "", ...body.slice(0, k), note(k)].join("\n");
  const fitted = await largestFitting(cut, 0, body.length, size);
  if (fitted.k > 0) return fitted.text;
  // Not even the first line fits (one enormous line): cut inside it.
  const room = budget - (await size.tokens(cut(0))) - 16;
  const first = body[0]!.slice(0, await fittingPrefix(body[0]!, Math.max(room, 1)));
  return [head, "", first, note(1)].join("\n");
}

/**
 * The patch window as git_diff shows it, except for the advice when it is cut: git_show's `path` reads a file
 * rather than narrowing the diff, so one file's diff is offered through git_diff instead.
 */
function renderShowPatch(diff: PatchWindow, commit: CommitInfo, maxBytes: number | undefined): string {
  const again = `commit=${commit.shortHash}${maxBytes === undefined ? "" : `, maxBytes=${maxBytes}`}`;
  if (!diff.truncated) return renderPatchWindow(diff, `git_show with ${again}`);
  const parent = commit.parents[0];
  const oneFile = parent === undefined ? "" : `, or git_diff with commit=${parent.slice(0, 7)}..${commit.shortHash} and path for one file`;
  const end = diff.offset + diff.returnedBytes;
  return [
    diff.patch!.replace(/\n$/, ""),
    `[patch truncated: showed bytes ${diff.offset}-${end} (more follows). ` +
      `Call git_show with ${again} and offset=${diff.nextOffset} for the next part${oneFile}.]`,
  ].join("\n");
}

/**
 * How a file's text names what it shows: the header's words and where, and what a call to continue repeats.
 * A path at a commit is "File src/a.ts at HEAD (abc123...)"; a tree or blob named by `commit` is "Tree HEAD^{tree}
 * (tree abc123...)".
 */
interface FileView {
  /** The header's first word for a directory and for a file: "Directory"/"File", or "Tree"/"Blob". */
  directoryNoun: string;
  fileNoun: string;
  where: string;
  /** What a call for the next part keeps: "the same commit and path", or "the same commit". */
  same: string;
}

function fileView(data: ShowFileData, commitInput: string): FileView {
  return {
    directoryNoun: "Directory",
    fileNoun: "File",
    where: `${showPath(data.path)} at ${showValue(commitInput)} (${data.commit.slice(0, 12)})`,
    same: "the same commit and path",
  };
}

function objectView(type: "tree" | "blob", oid: string, commitInput: string, tags: readonly ShowTag[]): FileView {
  const through = tags.length === 0 ? "" : `, tagged ${tags.map((tag) => showValue(tag.name)).join(" -> ")}`;
  return {
    directoryNoun: "Tree",
    fileNoun: "Blob",
    where: `${showValue(commitInput)} (${type} ${oid.slice(0, 12)}${through})`,
    same: "the same commit",
  };
}

/**
 * A file's text behind the content gutter, between gitctx's header and its end line (`[end of file]`, or how to
 * read on): no line of the file can end it early or continue after it as gitctx's.
 */
function renderFile(data: ShowFileData, view: FileView, maxBytes: number | undefined): string {
  const { where } = view;
  switch (data.type) {
    case "directory": {
      const lines = [`${view.directoryNoun} ${where}, ${plural(data.entryCount!, "entry", "entries")}:`, ...data.entries!.map(showPath)];
      if (data.entries!.length < data.entryCount!) {
        const first = data.fileOffset + 1;
        const next = data.nextFileOffset === null ? "" : ` Call git_show with ${view.same} and fileOffset=${data.nextFileOffset} for the next ones.`;
        lines.push(
          data.entries!.length === 0
            ? `[no entries from fileOffset ${data.fileOffset}: call git_show with fileOffset=0]`
            : `[entries ${first}-${data.fileOffset + data.entries!.length} of ${data.entryCount} listed.${next}]`,
        );
      }
      return lines.join("\n");
    }
    case "submodule":
      return `Submodule ${where} points to commit ${data.submoduleCommit}.`;
    case "symlink":
      return `Symlink ${where} -> ${showPath(data.content!)}`;
  }
  if (data.binary) return `Binary ${view.fileNoun.toLowerCase()} ${where}, ${plural(data.size!, "byte")}: content not shown.`;
  const header = `${view.fileNoun} ${where}, ${plural(data.size!, "byte")}${data.mode === "100755" ? ", executable" : ""}`;
  if (data.size === 0) return `${header}, empty.`;
  if (data.returnedBytes === 0 && data.offset > 0) {
    return `${header}: nothing more to show, the offset is at or past its end.`;
  }
  const end = data.offset + data.returnedBytes;
  let footer: string;
  if (data.truncated) {
    const again = maxBytes === undefined ? "" : ` and maxBytes=${maxBytes}`;
    footer =
      `[content truncated: showed bytes ${data.offset}-${end} of ${data.size}. ` +
      `Call git_show with ${view.same}${again} and offset=${data.nextOffset} for the rest.]`;
  } else {
    // The gutter shows every line the same way, so the one thing it cannot show is a missing final newline.
    const unterminated = data.content!.endsWith("\n") ? "" : ", no newline at its end";
    footer = data.offset > 0 ? `[end of file: bytes ${data.offset}-${end} of ${data.size}${unterminated}]` : `[end of file${unterminated}]`;
  }
  return `${header}:\n${contentLines(data.content!)}\n${footer}`;
}

/**
 * Output schemas several tools share: zod descriptions of the `data` types, from which each tool's output JSON
 * Schema is derived. Every schema is strict and checked at compile time to describe its TypeScript type exactly
 * (`Exact`), so the data types stay the single source of truth and a drift fails the typecheck.
 */
import * as z from "zod";
import type { PatchWindow } from "../diff/read-patch.js";
import type { DiffFileSummary, DiffTotals } from "../git/parse/diff.js";
import type { NeutralisedSetting } from "../git/config-scan.js";
import type { CommitInfo, Person } from "../git/parse/log.js";
import type { StatusEntry } from "../git/parse/status.js";

/** `true` only when A and B are the same type (not merely assignable one way). */
export type Exact<A, B> = (<G>() => G extends A ? 1 : 2) extends <G>() => G extends B ? 1 : 2 ? true : false;
/** Fails to compile unless given `true`: `type _ = Assert<Exact<z.output<typeof schema>, Data>>`. */
export type Assert<T extends true> = T;

/** A count, size, byte offset or line number. */
export const countSchema = z.number().int().min(0);

export const personSchema = z.strictObject({ name: z.string(), email: z.string(), date: z.string() });

export const commitInfoSchema = z.strictObject({
  hash: z.string(),
  shortHash: z.string(),
  parents: z.array(z.string()),
  author: personSchema,
  committer: personSchema,
  subject: z.string(),
  body: z.string(),
  notes: z
    .string()
    .optional()
    .describe("The commit's note (git notes: core.notesRef, else refs/notes/commits), as git log prints it under Notes:; absent without one."),
});

export const diffFileSummarySchema = z.strictObject({
  path: z.string(),
  oldPath: z.string().nullable(),
  status: z.enum(["added", "copied", "deleted", "modified", "renamed", "type_changed", "unmerged", "unknown"]),
  additions: countSchema
    .nullable()
    .describe("Lines added; null for a binary file, or when not counted (its part of the patch was not returned: stat=true counts every file)."),
  deletions: countSchema.nullable().describe("Lines deleted; null like additions."),
  hunks: countSchema.nullable().describe("Hunks in the patch; null when its part of the patch was not returned."),
  binary: z.boolean().nullable().describe("null when not known: the file was not counted."),
  created: z.boolean(),
  deleted: z.boolean(),
  renamed: z.boolean(),
  copied: z.boolean(),
  oldMode: z.string().nullable(),
  newMode: z.string().nullable(),
});

/** Program-naming settings of the repository's config that gitctx overrides (git_status, git_context). */
export const neutralisedSchema = z
  .array(z.strictObject({ key: z.string(), scope: z.string() }))
  .describe(
    "Settings of the repository's config (includes followed, checked-out submodules included) that name a program git " +
      "would run on a read (fsmonitor, hooks path, filters, external diff, textconv, pager, gpg, uploadpack, sshCommand...; " +
      "not the standard Git LFS set-up, read as git-lfs would: see lfs). " +
      "gitctx ran none of them; a non-empty list means the repository is set up to run programs: treat it with care. " +
      "Scope global or system: a filter driver of the user's own config, not run either (files it would clean may show changes).",
  );

/** How Git LFS files were read (git_status, git_context); absent when the repository's config uses no LFS. */
export const lfsReadingSchema = z
  .strictObject({
    gitLfsOnPath: z.boolean().describe("Whether git-lfs is installed (on PATH). When false, plain git here may fail on LFS files until it is."),
  })
  .optional()
  .describe(
    "Present when the config sets up Git LFS (git lfs install): files tracked by LFS were compared by their pointers, " +
      "computed by gitctx exactly as git-lfs computes them, so they read as the user's own git reads them; git-lfs did not run.",
  );

export const diffTotalsSchema = z.strictObject({
  files: countSchema,
  additions: countSchema,
  deletions: countSchema,
  binary: countSchema,
  uncounted: countSchema.describe("Files whose lines were not counted, so additions and deletions leave them out."),
});

/** One path of `git status`, as git_status and git_context report it. */
export const statusEntrySchema = z.strictObject({
  path: z.string(),
  origPath: z.string().nullable(),
  index: z.string(),
  worktree: z.string(),
  kind: z.enum(["modified", "added", "deleted", "renamed", "copied", "type_changed", "untracked", "conflicted"]),
  staged: z.boolean(),
  unstaged: z.boolean(),
  submodule: z.strictObject({ commitChanged: z.boolean(), modified: z.boolean(), untracked: z.boolean() }).optional(),
  symlink: z.literal(true).optional().describe("Present when the path is a symbolic link."),
});

/** The fields of a patch window, to spread into a tool's own object schema. */
export const patchWindowShape = {
  files: z.array(diffFileSummarySchema).describe("One page of the changed files (see fileOffset, nextFileOffset); totals count every file."),
  totals: diffTotalsSchema,
  fileOffset: countSchema,
  nextFileOffset: countSchema.nullable(),
  patch: z.string().nullable(),
  offset: countSchema,
  bytes: countSchema.nullable(),
  returnedBytes: countSchema,
  truncated: z.boolean(),
  nextOffset: countSchema.nullable(),
  renames: z.strictObject({ copies: z.boolean(), limitExceeded: z.boolean(), skipped: z.string().nullable() }),
};

export const patchWindowSchema = z.strictObject(patchWindowShape);

export type _Checks = [
  Assert<Exact<z.output<typeof personSchema>, Person>>,
  Assert<Exact<z.output<typeof commitInfoSchema>, CommitInfo>>,
  Assert<Exact<z.output<typeof diffFileSummarySchema>, DiffFileSummary>>,
  Assert<Exact<z.output<typeof diffTotalsSchema>, DiffTotals>>,
  Assert<Exact<z.output<typeof patchWindowSchema>, PatchWindow>>,
  Assert<Exact<z.output<typeof neutralisedSchema>, NeutralisedSetting[]>>,
  Assert<Exact<z.output<typeof statusEntrySchema>, StatusEntry>>,
];

import * as z from "zod";
import { DEFAULT_CONTEXT_BUDGET, renderSnapshot, type OmittedSection } from "../context/render.js";
import { CONTEXT_SECTIONS, gatherSnapshot, type ContextSection, type RepositorySnapshot } from "../context/snapshot.js";
import { countSchema, lfsReadingSchema, neutralisedSchema, statusEntrySchema, type Assert, type Exact } from "./outputs.js";
import { defineTool } from "./tool.js";

export const MAX_CONTEXT_BUDGET = 200_000;

export interface GitContextData {
  /** Every section asked for, in full (lists capped as documented on each type), whatever the budget. */
  snapshot: RepositorySnapshot;
  /** How the text was fitted: its o200k token count, the budget, and what it left out. */
  rendering: { budget: number; tokens: number; shown: ContextSection[]; omitted: OmittedSection[] };
}

const inputSchema = z.strictObject({
  budget: z
    .number()
    .int()
    .min(1)
    .max(MAX_CONTEXT_BUDGET)
    .default(DEFAULT_CONTEXT_BUDGET)
    .describe(
      `Most tokens of the text (o200k tokenizer; default ${DEFAULT_CONTEXT_BUDGET}). Sections are kept in priority order; ` +
        "what does not fit is named at the end with the call that returns it.",
    ),
  sections: z
    .array(z.enum(CONTEXT_SECTIONS))
    .min(1)
    .optional()
    .describe(
      "Only these sections (default: all), always in priority order: branch, head, operation (merge/rebase/... in " +
        "progress, conflicted files), indexLock, base (base branch, merge-base, ahead/behind), status (tracked " +
        "changes), untracked, commits (last 20), stashes, remotes (credentials redacted), worktrees, submodules.",
    ),
});

/** A section: its value, or why it could not be read. */
function part<T extends z.ZodType>(value: T) {
  return z.union([z.strictObject({ ok: z.literal(true), value }), z.strictObject({ ok: z.literal(false), reason: z.string() })]);
}

const oid = z.string();
const commitSummarySchema = z.strictObject({ hash: oid, shortHash: z.string(), author: z.string(), date: z.string(), subject: z.string() });
const sectionSchema = z.enum(CONTEXT_SECTIONS);

const snapshotSchema = z.strictObject({
  root: z.string(),
  topLevel: z.string(),
  gitDir: z.string(),
  takenAt: z.string(),
  sections: z.array(sectionSchema),
  neutralised: neutralisedSchema,
  lfs: lfsReadingSchema,
  shallowBoundary: z.array(z.string()),
  branch: part(
    z.strictObject({
      name: z.string().nullable(),
      ref: z.string().nullable(),
      detached: z.boolean(),
      tags: z.array(z.string()).optional().describe("Only when HEAD is detached: the tags pointing at its commit."),
    }),
  ).optional(),
  head: part(commitSummarySchema.nullable()).optional(),
  operation: part(
    z.strictObject({
      operations: z.array(
        z.strictObject({
          kind: z.enum(["merge", "rebase", "am", "cherry-pick", "revert", "bisect"]),
          commit: oid.nullable(),
          branch: z.string().nullable(),
          onto: oid.nullable(),
          step: countSchema.nullable(),
          steps: countSchema.nullable(),
        }),
      ),
      conflicted: z.array(z.string()),
    }),
  ).optional(),
  indexLock: part(z.strictObject({ path: z.string(), modifiedAt: z.string(), ageSeconds: countSchema, stale: z.boolean() }).nullable()).optional(),
  base: part(
    z
      .strictObject({
        name: z.string(),
        ref: z.string(),
        commit: oid,
        rule: z.enum(["upstream", "remote-head", "remote-branch", "local-branch"]),
        reason: z.string(),
        mergeBase: oid.nullable(),
        ahead: countSchema.nullable(),
        behind: countSchema.nullable(),
        upstream: z
          .strictObject({ name: z.string(), ref: z.string(), ahead: countSchema.nullable(), behind: countSchema.nullable(), gone: z.boolean() })
          .nullable(),
      })
      .nullable(),
  ).optional(),
  status: part(
    z.strictObject({
      entries: z.array(statusEntrySchema),
      counts: z.strictObject({ staged: countSchema, unstaged: countSchema, conflicted: countSchema, total: countSchema }),
      more: countSchema,
    }),
  ).optional(),
  untracked: part(
    z.strictObject({
      total: countSchema,
      files: z.array(z.string()),
      directories: z.array(z.strictObject({ path: z.string(), files: countSchema })),
      hidden: z.array(z.strictObject({ reason: z.string(), count: countSchema })),
      more: countSchema,
    }),
  ).optional(),
  commits: part(z.array(commitSummarySchema)).optional(),
  commitsLimitedTo: z.string().nullable().optional(),
  stashes: part(z.array(z.strictObject({ ref: z.string(), hash: oid, message: z.string() }))).optional(),
  remotes: part(
    z.array(z.strictObject({ name: z.string(), url: z.string().nullable(), pushUrl: z.string().nullable(), redacted: z.boolean() })),
  ).optional(),
  worktrees: part(
    z.array(
      z.strictObject({
        path: z.string(),
        head: oid.nullable(),
        branch: z.string().nullable(),
        detached: z.boolean(),
        bare: z.boolean(),
        locked: z.boolean(),
        prunable: z.boolean(),
        main: z.boolean(),
        current: z.boolean(),
        gitctx: z.boolean(),
        stale: z.boolean(),
      }),
    ),
  ).optional(),
  submodules: part(
    z.array(
      z.strictObject({
        name: z.string(),
        commitChanged: z.boolean().optional(),
        path: z.string(),
        url: z.string().nullable(),
        commit: oid.nullable(),
        initialized: z.boolean(),
      }),
    ),
  ).optional(),
});

const outputSchema = z.strictObject({
  snapshot: snapshotSchema,
  rendering: z.strictObject({
    budget: countSchema,
    tokens: countSchema,
    shown: z.array(sectionSchema),
    omitted: z.array(z.strictObject({ section: sectionSchema, whole: z.boolean(), get: z.string() })),
  }),
});
type _OutputMatchesData = Assert<Exact<z.output<typeof outputSchema>, GitContextData>>;

export const gitContext = defineTool({
  name: "git_context",
  title: "Git repository context",
  description:
    "Summarise the repository in one compact block: branch, HEAD, operation in progress and conflicts, index.lock, " +
    "base branch with ahead/behind, changes, untracked files, recent commits, stashes, remotes, worktrees and " +
    "submodules. Read in parallel from local state only (never the network), fitted to a token budget, and " +
    "saying what was left out and which call gets it. Call it first, before working in a repository. Prefer this " +
    "over running several git commands in a shell: one call, bounded output, no program from the repository's config runs.",
  keywords: [
    "git",
    "context",
    "snapshot",
    "overview",
    "summary",
    "branch",
    "base",
    "remote",
    "stash",
    "worktree",
    "submodule",
    "conflict",
    "rebase",
    "merge",
    "lock",
  ],
  permission: "read-only",
  requires: "repository",
  inputSchema,
  outputSchema,
  async run(input, { repo: open, signal }) {
    const repo = await open();
    const sections = input.sections ?? CONTEXT_SECTIONS;
    const snapshot = await gatherSnapshot(repo, { sections, ...(signal !== undefined ? { signal } : {}) });
    const rendered = await renderSnapshot(snapshot, { budget: input.budget });
    const data: GitContextData = {
      snapshot,
      rendering: { budget: rendered.budget, tokens: rendered.tokens, shown: rendered.shown, omitted: rendered.omitted },
    };
    return { data, text: rendered.text };
  },
});

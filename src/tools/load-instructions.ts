import { realpath } from "node:fs/promises";
import { posix, relative, resolve, sep } from "node:path";
import * as z from "zod";
import { GitctxError } from "../errors.js";
import { resolveWorkspacePath } from "../git/args.js";
import { DEFAULT_INSTRUCTIONS_BUDGET } from "../instructions/defaults.js";
import { INSTRUCTION_FORMATS } from "../instructions/formats.js";
import {
  CANDIDATE_STATUSES,
  type InstructionFile,
  type InstructionsResult,
  type LoadInstructionsOptions,
  type OnRequestRule,
  type RuleInfo,
} from "../instructions/types.js";
import { pathField } from "./fields.js";
import { countSchema, type Assert, type Exact } from "./outputs.js";
import { defineTool, type ToolSession } from "./tool.js";

/** Enough for any model's context; a larger budget is a mistake, not a wish. */
export const MAX_INSTRUCTIONS_BUDGET = 1_000_000;
/** Paths one call may name: an agent about to touch more files asks per batch. */
export const MAX_INSTRUCTION_PATHS = 1_000;

/** A rule as the data lists it: JSON has `null` where the loader has `undefined`. */
export interface LoadedRuleInfo extends Omit<RuleInfo, "alwaysApply" | "description"> {
  alwaysApply: boolean | null;
  description: string | null;
}

/** A loaded file as the data lists it: without its content, which is in the text already. */
export interface LoadedInstructionFile extends Omit<InstructionFile, "content" | "rule"> {
  rule?: LoadedRuleInfo;
}

export interface OnRequestRuleData extends Omit<OnRequestRule, "description"> {
  description: string | null;
}

/** The loader's result without what repeats the text (the text itself, each file's content), fit for JSON. */
export interface LoadInstructionsData extends Omit<InstructionsResult, "text" | "files" | "getAll" | "onRequest"> {
  files: LoadedInstructionFile[];
  /** The call that returns everything, when the budget cut something; else `null`. */
  getAll: string | null;
  onRequest: OnRequestRuleData[];
}

const FORMAT = z.enum(INSTRUCTION_FORMATS);

const inputSchema = z.strictObject({
  paths: z
    .array(pathField)
    .max(MAX_INSTRUCTION_PATHS)
    .optional()
    .describe("Files you are about to read, edit or create (new ones too), relative to the workspace root. Default: none."),
  formats: z
    .array(FORMAT)
    .min(1)
    .optional()
    .describe(
      "Whose files: claude (CLAUDE.md, .claude/rules/), agents (AGENTS.md), gemini (GEMINI.md), cursor (.cursor/rules/), " +
        "copilot (.github/instructions/). Default: claude, agents.",
    ),
  budget: z
    .number()
    .int()
    .min(1)
    .max(MAX_INSTRUCTIONS_BUDGET)
    .optional()
    .describe(`Most tokens of the text (default ${DEFAULT_INSTRUCTIONS_BUDGET}). What is cut is named, with the budget that gets it all.`),
  explain: z.boolean().default(false).describe("Also say, for every path looked at, why it was or was not loaded."),
});

const LAYERS = ["managed", "user", "ancestor", "project", "subdirectory"] as const;
const SCOPES = ["managed", "user", "ancestor", "project", "local", "subdirectory", "rule", "import"] as const;

const layerSchema = z.enum(LAYERS);
const scopeSchema = z.enum(SCOPES);
const matchSchema = z.strictObject({ path: z.string(), glob: z.string() });

const reasonSchema = z.discriminatedUnion("kind", [
  z.strictObject({ kind: z.literal("session_start") }),
  z.strictObject({ kind: z.literal("path"), path: z.string() }),
  z.strictObject({ kind: z.literal("rule_match"), path: z.string(), glob: z.string() }),
  z.strictObject({ kind: z.literal("import"), by: z.string(), line: countSchema }),
]);

const fileSchema = z.strictObject({
  path: z.string().describe("As shown in the text: relative to the workspace root, ~/... under the home directory, else absolute."),
  absolutePath: z.string(),
  realPath: z.string(),
  format: FORMAT,
  scope: scopeSchema,
  layer: layerSchema,
  reason: reasonSchema,
  bytes: countSchema,
  tokens: countSchema.describe("o200k tokens of the file's content, imports not included."),
  empty: z.boolean(),
  included: z.boolean().describe("false when the budget left it out (see cut)."),
  alsoKnownAs: z.array(z.string()).describe("Other names of the same file (a CLAUDE.md -> AGENTS.md symlink): loaded once."),
  rule: z
    .strictObject({
      globs: z.array(z.string()),
      activation: z.enum(["always", "globs", "on_request"]),
      alwaysApply: z.boolean().nullable(),
      description: z.string().nullable(),
      matched: z.array(matchSchema),
      base: z.string(),
    })
    .optional(),
  depth: countSchema,
  imports: z.array(z.string()),
  notes: z.array(z.string()),
});

const candidateSchema = z.strictObject({
  path: z.string(),
  absolutePath: z.string(),
  format: FORMAT,
  scope: scopeSchema,
  layer: layerSchema,
  status: z.enum(CANDIDATE_STATUSES),
  detail: z.string(),
  directory: z.string().optional(),
  importedBy: z.strictObject({ path: z.string(), line: countSchema }).optional(),
});

const outputSchema = z.strictObject({
  root: z.string(),
  topLevel: z.string(),
  formats: z.array(FORMAT),
  paths: z.array(z.string()),
  files: z.array(fileSchema),
  cut: z.array(z.strictObject({ path: z.string(), scope: scopeSchema, tokens: countSchema, imports: z.array(z.string()) })),
  getAll: z.string().nullable(),
  onRequest: z.array(z.strictObject({ path: z.string(), format: FORMAT, description: z.string().nullable() })),
  refused: z.array(candidateSchema).describe("Files that exist but were not read, and imports that could not be followed."),
  candidates: z.array(candidateSchema).optional().describe("With explain: every path looked at, in order."),
  explain: z.string().optional(),
  tokens: z.strictObject({
    rendered: countSchema,
    full: countSchema,
    budget: countSchema.nullable(),
    byLayer: z.record(layerSchema, countSchema),
    byScope: z.record(scopeSchema, countSchema),
  }),
  watched: z.array(z.strictObject({ path: z.string(), kind: z.enum(["file", "directory", "missing", "other"]), signature: z.string() })),
  settled: z.boolean(),
  operations: z.strictObject({ readdir: countSchema, stat: countSchema, realpath: countSchema, open: countSchema }),
});
type _OutputMatchesData = Assert<Exact<z.output<typeof outputSchema>, LoadInstructionsData>>;

export const loadInstructionsTool = defineTool({
  name: "load_instructions",
  title: "Load instruction files",
  description:
    "Load the project's instruction files (CLAUDE.md, AGENTS.md, rules...) that apply to the files you are about to " +
    "read or edit, as one text within a token budget: from the repository's top level down to each file's directory, " +
    "imports expanded, rules matched to those paths. Call it with those paths before you touch them, and again for " +
    "files elsewhere. Prefer this over reading the files yourself: it finds every layer, follows imports only inside " +
    "the project and never drops a file silently. Works outside a git repository too.",
  keywords: [
    "instructions",
    "rules",
    "claude",
    "agents",
    "claude.md",
    "agents.md",
    "gemini",
    "cursor",
    "copilot",
    "memory",
    "conventions",
    "guidelines",
    "prompt",
  ],
  permission: "read-only",
  requires: "workspace",
  inputSchema,
  outputSchema,
  async run(input, { session }) {
    const { root, topLevel } = await workspaceOf(session);
    const paths: string[] = [];
    for (const [index, given] of (input.paths ?? []).entries()) {
      // Confined like every tool's paths (symlinks leading out refused); the loader gets the name as written,
      // normalised, so rules match the path the agent uses.
      await resolveWorkspacePath({ paths: { root, topLevel } }, given, `paths[${index}]`);
      paths.push(toPosix(relative(root, resolve(root, given))) || ".");
    }
    const options: LoadInstructionsOptions = {
      ...session.instructionSources,
      root,
      topLevel,
      paths,
      explain: input.explain,
      ...(input.formats !== undefined ? { formats: input.formats } : {}),
      ...(input.budget !== undefined ? { budget: input.budget } : {}),
    };
    const result = await session.instructions.load(options);
    const text = input.explain && result.explain !== undefined ? `${result.text}\n${result.explain}` : result.text;
    return { data: instructionsData(result), text };
  },
});

/**
 * The root and where the walk starts: the repository's top level, or the root itself outside a repository (no
 * repository is an answer here, not an error). Any other discovery failure (an unsafe repository) is the answer.
 */
async function workspaceOf(session: ToolSession): Promise<{ root: string; topLevel: string }> {
  try {
    const { root, topLevel } = await session.paths();
    return { root, topLevel };
  } catch (error) {
    if (!(error instanceof GitctxError) || error.code !== "not_a_repository") throw error;
    // The session has checked the root is a directory; the real path, so confinement compares like with like.
    const root = await realpath(session.root);
    return { root, topLevel: root };
  }
}

export function instructionsData(result: InstructionsResult): LoadInstructionsData {
  const { text: _text, files, getAll, onRequest, watched, ...rest } = result;
  return {
    ...rest,
    // Listed by the loader as its reads complete, which varies from run to run: sorted, the same files give the same data.
    watched: [...watched].sort((a, b) => (a.path < b.path ? -1 : a.path > b.path ? 1 : 0)),
    files: files.map(({ content: _content, rule, ...file }) =>
      rule === undefined ? file : { ...file, rule: { ...rule, alwaysApply: rule.alwaysApply ?? null, description: rule.description ?? null } },
    ),
    getAll: getAll ?? null,
    onRequest: onRequest.map((entry) => ({ ...entry, description: entry.description ?? null })),
  };
}

function toPosix(path: string): string {
  return sep === "/" ? path : path.split(sep).join(posix.sep);
}

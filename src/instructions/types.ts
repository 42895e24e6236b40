/** The instruction loader's public shapes: its options, its result, and every file and refusal in it. */
import type { InstructionFormat } from "./formats.js";
import type { RuleActivation } from "./parse.js";

export interface LoadInstructionsOptions {
  /** The workspace root: absolute. Paths given and shown are relative to it. */
  root: string;
  /** The repository's top level when the root is inside a repository; the walk starts there. Default: the root. */
  topLevel?: string;
  /**
   * Files the agent is about to read or write, relative to the root (absolute ones must be inside it). They load
   * the instruction files of the directories below the root that hold them, and the rules whose globs match.
   * A path that does not exist yet (a new file) counts the same.
   */
  paths?: readonly string[];
  /** Which agents' files to read. Default: `claude` and `agents`. */
  formats?: readonly InstructionFormat[];
  /** Most o200k tokens the rendered text may have. Default 10,000; `Infinity` for no limit. */
  budget?: number;
  /** Also list every path looked at and why it was or was not loaded (`candidates`, `explain`). */
  explain?: boolean;
  /** The user's home directory, for `~/.claude/CLAUDE.md`, `~/.codex/AGENTS.md`… and `@~/…` imports. Absent: no user layer. */
  home?: string;
  /** A directory of managed (administrator) instructions, laid out like a project directory; never excluded. */
  managedDir?: string;
  /** Globs on absolute paths of instruction files not to load (the managed directory ignores them). */
  excludes?: readonly string[];
  /** Absolute directories outside the project that imports and symlinks may reach. */
  allowedImportDirs?: readonly string[];
  /**
   * Also read the directories above the repository's top level, up to `/`. Off by default: those directories
   * belong to other projects or other users (a `CLAUDE.md` in `/tmp` or a shared home), and what steers an
   * agent in a repository should be in the repository or in the user's own configuration.
   */
  walkAboveTopLevel?: boolean;
  /** Most levels of `@` imports followed. Default 4. */
  maxImportDepth?: number;
  /** Largest file read, in bytes. Default 4 MiB. */
  maxFileBytes?: number;
}

/** What kind of instruction a file is. */
export type InstructionScope = "managed" | "user" | "ancestor" | "project" | "local" | "subdirectory" | "rule" | "import";

/** Where a file sits in the order, general first: managed, user, above the repository, project, below the root. */
export type InstructionLayer = "managed" | "user" | "ancestor" | "project" | "subdirectory";

export const INSTRUCTION_LAYERS: readonly InstructionLayer[] = ["managed", "user", "ancestor", "project", "subdirectory"];

export type LoadReason =
  | { kind: "session_start" }
  /** A file below the root, loaded because a given path is in its directory's tree. */
  | { kind: "path"; path: string }
  | { kind: "rule_match"; path: string; glob: string }
  | { kind: "import"; by: string; line: number };

export interface RuleInfo {
  globs: string[];
  activation: RuleActivation;
  alwaysApply: boolean | undefined;
  description: string | undefined;
  /** Every given path that matched, with the glob that matched it (POSIX, relative to the root). */
  matched: Array<{ path: string; glob: string }>;
  /** The directory the globs are relative to, as shown. */
  base: string;
}

export interface InstructionFile {
  /** As shown: relative to the root (`../CLAUDE.md` above it), `~/…` under the home directory, else absolute. */
  path: string;
  absolutePath: string;
  realPath: string;
  format: InstructionFormat;
  scope: InstructionScope;
  layer: InstructionLayer;
  reason: LoadReason;
  bytes: number;
  /** o200k tokens of `content`, imports not included. */
  tokens: number;
  /** Nothing left once frontmatter and block comments are removed. */
  empty: boolean;
  /** `false` when the budget left it out (see `cut`). */
  included: boolean;
  /** Other names the same file was found under (a `CLAUDE.md -> AGENTS.md` symlink). */
  alsoKnownAs: string[];
  rule?: RuleInfo;
  /** 0 for a file found in a directory, n for an import n levels down. */
  depth: number;
  /** Paths (as shown) of the files this one imports and that were loaded. */
  imports: string[];
  /** The text that goes into the prompt: no frontmatter, no block comments, imports not expanded. */
  content: string;
  /** Something worth knowing that did not stop the file loading (frontmatter read leniently, a bad glob). */
  notes: string[];
}

/** Every status a candidate instruction file can end in (the output schema of load_instructions lists these). */
export const CANDIDATE_STATUSES = [
  "loaded",
  "empty",
  "cut",
  "missing",
  "shadowed",
  "skipped",
  "excluded",
  "outside",
  "not_a_file",
  "too_large",
  "binary",
  "unreadable",
  "duplicate",
  "not_matched",
  "on_request",
  "cycle",
  "too_deep",
  "sensitive",
] as const;

/** What became of a candidate instruction file (see CANDIDATE_STATUSES). */
export type CandidateStatus = (typeof CANDIDATE_STATUSES)[number];

/** A path the loader looked at, and what became of it. */
export interface InstructionCandidate {
  path: string;
  absolutePath: string;
  format: InstructionFormat;
  scope: InstructionScope;
  layer: InstructionLayer;
  status: CandidateStatus;
  /** One sentence: why, and what to do about it where something can be done. */
  detail: string;
  /** For a file looked for in a directory: that directory, as shown (`.` for the root). */
  directory?: string;
  /** For an import: the file and line that asked for it. */
  importedBy?: { path: string; line: number };
}

export interface CutFile {
  path: string;
  scope: InstructionScope;
  /** Tokens its part of the text would have taken, headers and imports included. */
  tokens: number;
  /** The imported files that went with it. */
  imports: string[];
}

export interface OnRequestRule {
  path: string;
  format: InstructionFormat;
  description: string | undefined;
}

/** A file or directory the result depends on, with its signature when read (`missing` when it did not exist). */
export interface WatchedPath {
  path: string;
  kind: "file" | "directory" | "missing" | "other";
  signature: string;
}

export interface InstructionsResult {
  /** Everything for a system prompt, never more than `tokens.budget` o200k tokens. */
  text: string;
  root: string;
  topLevel: string;
  formats: InstructionFormat[];
  /** The given paths, POSIX, relative to the root. */
  paths: string[];
  /** Every file loaded, in prompt order (an import right after the file that imports it). */
  files: InstructionFile[];
  /** Files the budget left out, most general first, and how to get them. */
  cut: CutFile[];
  /** The call that returns everything: the budget it needs, or reading the files. */
  getAll: string | undefined;
  /** Rules that apply only when asked for (Cursor "agent requested", Copilot without `applyTo`). */
  onRequest: OnRequestRule[];
  /** Files that exist but were refused, and imports that could not be followed: never silent. */
  refused: InstructionCandidate[];
  /** With `explain`: every path looked at, in order. */
  candidates?: InstructionCandidate[];
  /** With `explain`: `candidates` as text, one line each. */
  explain?: string;
  tokens: {
    /** o200k tokens in `text`. */
    rendered: number;
    /** Tokens the text would have with no budget. */
    full: number;
    /** `null`: no limit. */
    budget: number | null;
    /** Tokens of the files loaded, per layer (imports count for the layer of the file that imports them). */
    byLayer: Record<InstructionLayer, number>;
    byScope: Record<InstructionScope, number>;
  };
  /**
   * Every file and directory the result was read from, with signatures (device, inode, size, mode, times), for
   * a cache or a watcher: while every signature is the same the result is the same.
   */
  watched: WatchedPath[];
  /** `false` when a watched path changed within the last 2 s: its signature may not show the next change. */
  settled: boolean;
  /** File-system calls made: what the load cost. */
  operations: { readdir: number; stat: number; realpath: number; open: number };
}

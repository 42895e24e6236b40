/**
 * Where each agent keeps its instruction files: one table, read by the loader for every directory it visits.
 * Order in the table is order in the prompt within one directory (general first, the personal local file last).
 */

export const INSTRUCTION_FORMATS = ["claude", "agents", "gemini", "cursor", "copilot"] as const;
export type InstructionFormat = (typeof INSTRUCTION_FORMATS)[number];

/** What most agents read: Claude Code's files and the AGENTS.md that Codex, Cursor, Copilot and others share. */
export const DEFAULT_INSTRUCTION_FORMATS: readonly InstructionFormat[] = ["claude", "agents"];

/** An instruction file at a fixed place relative to a directory. */
export interface FileSpec {
  format: InstructionFormat;
  /** POSIX path relative to the directory, e.g. `.claude/CLAUDE.md`. */
  name: string;
  /** `CLAUDE.local.md`: the user's own, not committed; goes after everything else of its directory. */
  local?: boolean;
  /** Read only in the project's top level (Copilot reads `.github/` there; `.cursorrules` is a top-level file). */
  topLevelOnly?: boolean;
  /** Another spec's name that this one replaces when it is loaded (`AGENTS.override.md` over `AGENTS.md`). */
  overrides?: string;
}

/** A directory of rule files, searched recursively. */
export interface RuleDirSpec {
  format: InstructionFormat;
  /** POSIX path relative to the directory, e.g. `.claude/rules`. */
  dir: string;
  /** File names that are rules there, e.g. `.md`. */
  suffix: string;
  /** Whether a rule without globs or `alwaysApply` applies always (Claude) or only on request (Cursor, Copilot). */
  unconditionalByDefault: boolean;
  topLevelOnly?: boolean;
}

/** Per directory, in prompt order; the rules of the directory come after `FILES_BEFORE_RULES`. */
export const DIRECTORY_FILES: readonly FileSpec[] = [
  { format: "claude", name: "CLAUDE.md" },
  { format: "claude", name: ".claude/CLAUDE.md" },
  { format: "agents", name: "AGENTS.override.md", overrides: "AGENTS.md" },
  { format: "agents", name: "AGENTS.md" },
  { format: "gemini", name: "GEMINI.md" },
  { format: "cursor", name: ".cursorrules", topLevelOnly: true },
  { format: "copilot", name: ".github/copilot-instructions.md", topLevelOnly: true },
  { format: "claude", name: "CLAUDE.local.md", local: true },
];

export const DIRECTORY_RULES: readonly RuleDirSpec[] = [
  { format: "claude", dir: ".claude/rules", suffix: ".md", unconditionalByDefault: true },
  { format: "cursor", dir: ".cursor/rules", suffix: ".mdc", unconditionalByDefault: false },
  { format: "copilot", dir: ".github/instructions", suffix: ".instructions.md", unconditionalByDefault: false, topLevelOnly: true },
];

/** The user's own files, relative to the home directory: each agent's dot directory. */
export interface UserDirSpec {
  format: InstructionFormat;
  /** The agent's directory under home, e.g. `.claude`; the user's instruction directory imports may reach. */
  dir: string;
  files: readonly FileSpec[];
  rules: readonly RuleDirSpec[];
}

export const USER_DIRECTORIES: readonly UserDirSpec[] = [
  {
    format: "claude",
    dir: ".claude",
    files: [{ format: "claude", name: "CLAUDE.md" }],
    rules: [{ format: "claude", dir: "rules", suffix: ".md", unconditionalByDefault: true }],
  },
  {
    format: "agents",
    dir: ".codex",
    files: [
      { format: "agents", name: "AGENTS.override.md", overrides: "AGENTS.md" },
      { format: "agents", name: "AGENTS.md" },
    ],
    rules: [],
  },
  { format: "gemini", dir: ".gemini", files: [{ format: "gemini", name: "GEMINI.md" }], rules: [] },
];

/**
 * Which category a changed file belongs to, from its path: pure, so the same rules serve the watcher, its tests
 * and anyone who wants to know why an event was filed where it was.
 */
import type { WatchCategory } from "./types.js";

/** Names of instruction files of the agents gitctx knows (`claude`, `agents`, `gemini`, `cursor`, `copilot`). */
const INSTRUCTION_NAMES = new Set(["CLAUDE.md", "CLAUDE.local.md", "AGENTS.md", "AGENTS.override.md", "GEMINI.md", ".cursorrules"]);
const INSTRUCTION_SUFFIXES = [".github/copilot-instructions.md"];

/** Directories whose every file is a rule (path-scoped instructions). */
const RULE_DIRECTORIES = [".claude/rules/", ".cursor/rules/", ".github/instructions/"];

/** Agent and MCP settings, and gitctx's own worktree settings. */
const SETTINGS_SUFFIXES = [".mcp.json", ".cursor/mcp.json", ".vscode/mcp.json", ".gemini/settings.json", ".codex/config.toml", ".worktreeinclude"];
const CLAUDE_SETTINGS = /(?:^|\/)\.claude\/settings[^/]*\.json$/;

function endsWithSegments(path: string, suffix: string): boolean {
  return path === suffix || path.endsWith(`/${suffix}`);
}

function underDirectory(path: string, directory: string): boolean {
  return path.startsWith(directory) || path.includes(`/${directory}`);
}

/**
 * The category of a file, given its `/`-separated path (relative to the top level, or absolute outside it) and
 * whether the instruction loader used it. Rules and settings are recognised by where they live; a file the loader
 * used, or one named like an instruction file anywhere (a new `sub/CLAUDE.md` the loader has not seen yet), is
 * an instruction; anything else is source.
 */
export function classifyPath(path: string, usedByInstructions: boolean): Exclude<WatchCategory, "git" | "watcher"> {
  if (RULE_DIRECTORIES.some((directory) => underDirectory(path, directory))) return "rules";
  if (CLAUDE_SETTINGS.test(path) || SETTINGS_SUFFIXES.some((suffix) => endsWithSegments(path, suffix))) return "settings";
  if (usedByInstructions) return "instructions";
  const slash = path.lastIndexOf("/");
  if (INSTRUCTION_NAMES.has(path.slice(slash + 1)) || INSTRUCTION_SUFFIXES.some((suffix) => endsWithSegments(path, suffix))) {
    return "instructions";
  }
  return "source";
}

/**
 * Whether a command line may run git at all, decided from its text alone without parsing it: false only when no
 * word could be or become `git` (no `git` in the text with quotes and backslashes removed, and no character that
 * expands: `$`, backquote, glob, brace, tilde). For such a line `classifyCommand` finds no git and no indirect
 * invocation, so callers that only care about git (the hook) can skip loading the classifier and the shell
 * parser. A module of its own so that it costs nothing to load.
 */
export function mayRunGit(commandLine: string): boolean {
  if (/[$`*?[{~]/.test(commandLine)) return true;
  return commandLine
    .replace(/['"\\]/g, "")
    .toLowerCase()
    .includes("git");
}

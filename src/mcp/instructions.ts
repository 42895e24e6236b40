/** The server `instructions`: when a model should reach for these tools instead of git in a shell. */
import type { ToolInfo } from "../index.js";

export function serverInstructions(tools: readonly ToolInfo[]): string {
  const names = tools.map((tool) => tool.name).join(", ");
  const readOnly = tools.every((tool) => tool.permission === "read-only");
  const lines = [
    `gitctx gives structured, bounded access to the git repository of the workspace (tools: ${names}).`,
    "",
    "Use these tools instead of running git in a shell (`git status`, `git diff`, `git log`, `git show`, " +
      "`git blame`, ...) whenever you look at the repository: they cannot run programs named by the repository's " +
      "config (hooks, fsmonitor, filters, pagers, external diff), their output does not depend on local settings, " +
      "large output is capped, and every result comes as typed data plus compact text. Each tool's description " +
      "says when to use it.",
    "",
    ...(tools.some((tool) => tool.name === "git_context")
      ? ["- Start with git_context (also the resource gitctx://context): one compact picture of the repository."]
      : []),
    ...(tools.some((tool) => tool.name === "load_instructions")
      ? [
          "- Before you read or edit files, call load_instructions with their paths: the project's instruction files " +
            "and rules for them (also the resource gitctx://instructions; the prompt system_context gives both as one " +
            "system context).",
        ]
      : []),
    "- Paths are relative to the workspace root and must stay inside it.",
    "- Answers are bounded (10,000 tokens by default); a cut result says how to get the rest: call again with the " +
      "offset, fileOffset, start_line or skip it gives.",
    "- A clean tree, an empty diff or a repository without commits is an answer, not an error.",
    "- An error result says what went wrong and gives a hint: follow the hint instead of repeating the call.",
  ];
  if (readOnly) {
    lines.push(
      "",
      "These tools never change the repository. To stage, commit, switch branches, fetch or push, use your usual " +
        "means, with the user's approval.",
    );
  }
  return lines.join("\n");
}

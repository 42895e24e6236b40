/**
 * `gitctx hook claude-code`: a Claude Code PreToolUse hook. It reads the hook event on stdin and, for a Bash
 * command line that runs git, answers with a permission decision. Everything else gets no decision, so the
 * user's own permission settings apply: non-Bash tools, command lines without git, and command lines whose git
 * part is allowed but which also run other programs (an `allow` would let those run unasked).
 *
 * It runs before every Bash command, so it loads as little as it can: a line that cannot run git is answered
 * without loading the shell parser, and the repository is checked only when a read would otherwise be allowed.
 */
import type { Command } from "commander";
import type { Classification, Verdict } from "../safety/classify.js";
import { readAll, type CliIO, type SetExitCode } from "./common.js";

/** What the hook prints; `undefined` means no decision (print nothing). */
export interface HookAnswer {
  hookSpecificOutput: {
    hookEventName: "PreToolUse";
    permissionDecision: Verdict;
    permissionDecisionReason: string;
  };
}

/** Adds `gitctx hook claude-code` to `program`. */
export function registerHookCommand(program: Command, io: CliIO, setExitCode: SetExitCode): void {
  const hook = program.command("hook").description("permission hooks for coding agents").showHelpAfterError('(run "gitctx hook --help" for usage)');
  hook
    .command("claude-code")
    .description("Claude Code PreToolUse hook: reads the event on stdin, answers allow/ask/deny for git command lines")
    .addHelpText(
      "after",
      `
Add to .claude/settings.json:
  {"hooks": {"PreToolUse": [{"matcher": "Bash",
    "hooks": [{"type": "command", "command": "gitctx hook claude-code"}]}]}}

Exit codes:
  0  answered (a decision on stdout, or nothing: no decision)
  1  the event on stdin is not valid JSON (Claude Code then applies its own settings)`,
    )
    .action(async () => {
      setExitCode(await runClaudeCodeHook(io));
    });
}

/** The hook itself: the event on stdin, the decision (or nothing) on stdout; the exit code. */
export async function runClaudeCodeHook(io: CliIO): Promise<number> {
  const text = await readAll(io.stdin);
  let event: unknown;
  try {
    event = JSON.parse(text);
  } catch (error) {
    io.stderr.write(`gitctx hook claude-code: the event on stdin is not valid JSON: ${error instanceof Error ? error.message : String(error)}\n`);
    return 1;
  }
  const answer = await answerHookEvent(event);
  if (answer !== undefined) io.stdout.write(`${JSON.stringify(answer)}\n`);
  return 0;
}

/** The decision for one PreToolUse event, or `undefined` for no decision. */
export async function answerHookEvent(event: unknown): Promise<HookAnswer | undefined> {
  if (event === null || typeof event !== "object") return undefined;
  const { tool_name: toolName, tool_input: toolInput, cwd } = event as { tool_name?: unknown; tool_input?: unknown; cwd?: unknown };
  if (toolName !== "Bash" || toolInput === null || typeof toolInput !== "object") return undefined;
  const command = (toolInput as { command?: unknown }).command;
  if (typeof command !== "string") return undefined;
  const { mayRunGit } = await import("../safety/may-run-git.js");
  // No word of the line can be or become git: the classifier would find no git part, so there is no decision.
  if (!mayRunGit(command)) return undefined;
  const root = typeof cwd === "string" && cwd !== "" ? cwd : process.cwd();
  // Most git lines are reads that need the repository checked: start its git processes now, so they run while
  // this process loads and runs the parser; a line that turns out not to need them just lets them finish.
  const facts = import("../guard/repository-check.js").then(({ inspectRepository }) => inspectRepository(root));
  facts.catch(() => undefined);
  const [{ classifyCommand }, { useParserCodeCache }] = await Promise.all([import("../safety/classify.js"), import("./parser-cache.js")]);
  useParserCodeCache();
  const pure = classifyCommand(command, { cwd: root });
  // The repository is checked only when its facts can change the answer: a line with a read (its facts may
  // also resolve a `cd` or `-C` to the work tree's top) that is not denied anyway.
  if (!pure.invocations.some((inv) => inv.read) || pure.verdict === "deny") return decide(pure);
  return decide(classifyCommand(command, { cwd: root, repository: await facts }));
}

function decide(classification: Classification): HookAnswer | undefined {
  const gitParts = classification.invocations.filter((inv) => inv.kind === "git" || inv.kind === "indirect");
  if (gitParts.length === 0) return undefined;
  const verdict = classification.gitVerdict ?? "allow";
  const others = classification.invocations.filter((inv) => inv.kind === "other");
  // An allowed git part next to other programs: allowing the line would let those run unasked.
  if (verdict === "allow" && (others.length > 0 || classification.verdict !== "allow")) return undefined;
  const understood = classification.invocations.filter((inv) => inv.kind !== "other");
  const reasons =
    verdict === "allow"
      ? [`read-only git: ${understood.map((inv) => inv.source.replace(/\s+/g, " ")).join("; ")}`]
      : understood.filter((inv) => inv.verdict === verdict).flatMap((inv) => inv.reasons.map((r) => `${inv.source.replace(/\s+/g, " ")}: ${r}`));
  return {
    hookSpecificOutput: {
      hookEventName: "PreToolUse",
      permissionDecision: verdict,
      permissionDecisionReason: `gitctx: ${reasons.join("; ")}`,
    },
  };
}

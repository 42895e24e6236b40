/**
 * A scripted provider: a deterministic stand-in for a model, for offline demos and tests. It decides from the
 * task's words and the tool results it has seen, the way a careful agent would:
 *
 * 1. `git_status` first (scoped to a path the task names, like `src/app.ts`), with `git_log` in the same turn
 *    when the task asks about history, and first of all the write the task asks for (`commit it`, `push`...),
 *    a tool gitctx does not have: the model reads `unknown_tool` and carries on with what it can do;
 * 2. then the diff of what status found: staged and unstaged changes as two `git_diff` calls in one turn, each
 *    capped (`maxBytes`, default 4,000, or the size the task names, e.g. "in 2000 bytes");
 * 3. then a final summary written from the data: branch, files, additions, deletions, what is staged, what is
 *    untracked, and what could not be seen.
 *
 * It recovers the way the tools' errors tell it to: a path that matches nothing (`path_not_found`) is dropped
 * and status asked again for the whole tree; a byte cap the tool refuses (`invalid_input`, e.g. "in 0 bytes")
 * is replaced by the default. Everything it says comes from results it was given; nothing depends on time.
 */
import type { GitDiffData, GitLogData, GitStatusData, ToolResult } from "../index.js";
import type { AgentMessage, AgentProvider, AgentToolCall, ProviderRequest, ProviderTurn } from "./types.js";

export const DEFAULT_SCRIPTED_MAX_BYTES = 4_000;
const MAX_FILES_LISTED = 20;

export interface ScriptedProviderOptions {
  /** The diff cap when the task names none. Default 4,000 bytes. */
  maxBytes?: number;
}

/** What the task asks for, read from its words. */
export interface TaskPlan {
  /** A path the task names (the first word that looks like one), to scope status and diff to. */
  path: string | undefined;
  /** A byte cap the task names ("in 2000 bytes", "4kb"). */
  maxBytes: number | undefined;
  /** The task asks about history: commits, log, recent. */
  history: boolean;
  /** A git write the task asks for (`commit`, `push`, `stage`...), made into the tool a model might guess. */
  write: { tool: string; input: Record<string, unknown> } | undefined;
}

const WRITE_VERBS = ["commit", "push", "stage", "checkout", "reset", "merge", "rebase", "stash", "amend"];

export function readTask(task: string): TaskPlan {
  const words = task
    .split(/\s+/)
    .map((word) => word.replace(/^[("'`]+|[)"'`.,;:!?]+$/g, ""))
    .filter(Boolean);
  const path = words.find(
    (word) => !/^[a-z]+:\/\//i.test(word) && !/^\d/.test(word) && (/[\w.-]\/[\w.-]/.test(word) || /^[\w-]{2,}\.[a-z][a-z0-9]{0,4}$/i.test(word)),
  );
  const bytes = /(\d[\d,_]*)\s*(kib|kb|k|bytes?|b)\b/i.exec(task);
  const maxBytes = bytes === null ? undefined : Number((bytes[1] as string).replace(/[,_]/g, "")) * (/^k/i.test(bytes[2] as string) ? 1024 : 1);
  const history = /\b(history|log|commits|recent|latest)\b/i.test(task);
  // A write is asked for when its verb starts the task or an instruction ("... and commit it").
  const write = WRITE_VERBS.find((verb) => new RegExp(`(^|\\b(and|then|please)\\s+)${verb}\\b(?!s)`, "i").test(task.trim()));
  return {
    path,
    maxBytes,
    history,
    write: write === undefined ? undefined : { tool: `git_${write}`, input: write === "commit" || write === "amend" ? { message: "Update" } : {} },
  };
}

export function scriptedProvider(options: ScriptedProviderOptions = {}): AgentProvider {
  const defaultCap = options.maxBytes ?? DEFAULT_SCRIPTED_MAX_BYTES;
  return {
    name: "scripted",
    async next(request: ProviderRequest): Promise<ProviderTurn> {
      return decide(request, defaultCap);
    },
  };
}

interface Seen {
  call: AgentToolCall;
  result: ToolResult;
}

function decide(request: ProviderRequest, defaultCap: number): ProviderTurn {
  const task = request.messages.find((message): message is Extract<AgentMessage, { role: "user" }> => message.role === "user")?.text ?? "";
  const plan = readTask(task);
  const seen = seenCalls(request.messages);
  const calls: Omit<AgentToolCall, "id">[] = [];
  const step = request.step;
  const call = (list: Omit<AgentToolCall, "id">[]): ProviderTurn => ({
    text: "",
    toolCalls: list.map((entry, index) => ({ id: `call_${step}_${index + 1}`, ...entry })),
  });

  // 1. Status (and the write and the history the task asks for), scoped to the task's path until that fails.
  const statuses = seen.filter((entry) => entry.call.name === "git_status");
  const status = statuses.find((entry) => entry.result.ok);
  if (status === undefined) {
    const last = statuses.at(-1);
    if (last === undefined) {
      if (plan.write !== undefined) calls.push({ name: plan.write.tool, input: plan.write.input });
      calls.push({ name: "git_status", input: plan.path === undefined ? {} : { path: plan.path } });
      if (plan.history) calls.push({ name: "git_log", input: { count: 5, oneline: true } });
      return call(calls);
    }
    if (!last.result.ok && last.result.error.code === "path_not_found" && hasPath(last.call)) {
      return call([{ name: "git_status", input: {} }]);
    }
    return { text: cannotRead(last.result), toolCalls: [] };
  }
  const statusData = (status.result as Extract<ToolResult, { ok: true }>).data as GitStatusData;
  const scope = (status.call.input as { path?: string }).path;

  // 2. The diff of what status found, one call per side that has changes, in one turn.
  const wanted: ("staged" | "unstaged")[] = [];
  if (statusData.counts.staged > 0) wanted.push("staged");
  if (statusData.counts.unstaged > 0) wanted.push("unstaged");
  for (const side of wanted) {
    const attempts = seen.filter((entry) => entry.call.name === "git_diff" && diffSide(entry.call) === side);
    if (attempts.some((entry) => entry.result.ok)) continue;
    const last = attempts.at(-1);
    const refusedCap =
      last !== undefined &&
      !last.result.ok &&
      last.result.error.code === "invalid_input" &&
      (last.call.input as { maxBytes?: number }).maxBytes !== defaultCap;
    if (last !== undefined && !refusedCap) continue; // It failed for a reason a retry would not fix: report it.
    const maxBytes = refusedCap || plan.maxBytes === undefined ? defaultCap : plan.maxBytes;
    calls.push({
      name: "git_diff",
      input: { ...(side === "staged" ? { staged: true } : {}), ...(scope !== undefined ? { path: scope } : {}), maxBytes },
    });
  }
  if (calls.length > 0) return call(calls);

  // 3. The summary, from the data.
  return { text: summarize(plan, statusData, scope, seen), toolCalls: [] };
}

function seenCalls(messages: readonly AgentMessage[]): Seen[] {
  const calls = new Map<string, AgentToolCall>();
  const seen: Seen[] = [];
  for (const message of messages) {
    if (message.role === "assistant") for (const toolCall of message.toolCalls) calls.set(toolCall.id, toolCall);
    if (message.role === "tool") {
      for (const result of message.results) {
        const toolCall = calls.get(result.callId);
        if (toolCall !== undefined) seen.push({ call: toolCall, result: result.result });
      }
    }
  }
  return seen;
}

function hasPath(call: AgentToolCall): boolean {
  return typeof (call.input as { path?: unknown }).path === "string";
}

function diffSide(call: AgentToolCall): "staged" | "unstaged" {
  return (call.input as { staged?: unknown }).staged === true ? "staged" : "unstaged";
}

function cannotRead(result: ToolResult): string {
  const error = result.ok ? undefined : result.error;
  return `I could not read the repository's status: ${error?.message ?? "no result"}${error?.hint === undefined ? "" : ` ${error.hint}`}`;
}

function summarize(_plan: TaskPlan, status: GitStatusData, scope: string | undefined, seen: readonly Seen[]): string {
  const lines: string[] = [];
  const where = scope === undefined ? "" : ` under ${scope}`;
  const branch = status.branch.detached
    ? `detached HEAD at ${status.branch.oid?.slice(0, 12) ?? "no commit"}`
    : `branch ${status.branch.head ?? "(unknown)"}`;
  const tracking =
    status.branch.upstream === null
      ? ""
      : status.branch.ahead === null
        ? `, upstream ${status.branch.upstream} gone`
        : `, ${status.branch.ahead} ahead and ${status.branch.behind} behind ${status.branch.upstream}`;

  if (status.clean) {
    lines.push(`On ${branch}${tracking}: the working tree is clean${where}. Nothing is staged, modified or untracked.`);
  } else {
    const { counts } = status;
    lines.push(
      `On ${branch}${tracking}: ${count(counts.total, "path")} changed${where} (${counts.staged} staged, ${counts.unstaged} unstaged, ${counts.untracked} untracked${counts.conflicted > 0 ? `, ${counts.conflicted} conflicted` : ""}).`,
    );
    for (const side of ["staged", "unstaged"] as const) {
      const attempts = seen.filter((entry) => entry.call.name === "git_diff" && diffSide(entry.call) === side);
      const diff = attempts.find((entry) => entry.result.ok) ?? attempts.at(-1);
      if (diff === undefined) continue;
      lines.push(
        diff.result.ok
          ? describeDiff(side, diff.result.data as GitDiffData)
          : `${capitalize(side)} changes: could not be read (${diff.result.error.code}: ${diff.result.error.message}).`,
      );
    }
    const untracked = status.entries.filter((entry) => entry.kind === "untracked").map((entry) => entry.path);
    if (untracked.length > 0) lines.push(`Untracked (not in any diff): ${list(untracked)}.`);
    const conflicted = status.entries.filter((entry) => entry.kind === "conflicted").map((entry) => entry.path);
    if (conflicted.length > 0) lines.push(`Conflicted: ${list(conflicted)}.`);
    lines.push(counts.staged > 0 ? `What is staged will go into the next commit; the rest will not until it is added.` : `Nothing is staged yet.`);
  }

  const log = seen.find((entry) => entry.call.name === "git_log" && entry.result.ok);
  if (log !== undefined) {
    const commits = (log.result as Extract<ToolResult, { ok: true }>).data as GitLogData;
    lines.push(
      commits.commits.length === 0
        ? "There are no commits yet."
        : `Recent commits: ${commits.commits.map((commit) => `${commit.shortHash} ${commit.subject}`).join("; ")}.`,
    );
  }

  // What did not go as asked, from the errors the tools gave.
  for (const entry of seen) {
    if (entry.result.ok) continue;
    const { code } = entry.result.error;
    const verb = entry.call.name.replace(/^git_/, "");
    if (code === "unknown_tool") {
      lines.push(
        `I did not ${verb}: there is no ${entry.call.name} tool (the tools here only read the repository). Run git ${verb} yourself when you are ready.`,
      );
    } else if (code === "permission_denied") {
      lines.push(`I did not ${verb}: ${entry.result.error.message}`);
    } else if (code === "path_not_found" && entry.call.name === "git_status") {
      lines.push(
        `${JSON.stringify((entry.call.input as { path?: string }).path)} matches nothing in the working tree or the index, so this covers the whole repository.`,
      );
    } else if (code === "invalid_input" && entry.call.name === "git_diff") {
      lines.push(
        `The diff tool refused a cap of ${JSON.stringify((entry.call.input as { maxBytes?: unknown }).maxBytes)} bytes; I used the default cap instead.`,
      );
    }
  }
  // Two calls that failed alike (both sides of a refused cap) make one note.
  return [...new Set(lines)].join("\n");
}

function describeDiff(side: "staged" | "unstaged", diff: GitDiffData): string {
  const { totals } = diff;
  const files = diff.files.slice(0, MAX_FILES_LISTED).map((file) => {
    const lines =
      file.binary === true
        ? "binary"
        : file.additions === null || file.deletions === null
          ? "lines not counted"
          : `+${file.additions} -${file.deletions}`;
    const name = file.oldPath !== null && file.oldPath !== file.path ? `${file.oldPath} -> ${file.path}` : file.path;
    return `${name} (${file.status}, ${lines})`;
  });
  const more = diff.files.length > MAX_FILES_LISTED ? `, and ${diff.files.length - MAX_FILES_LISTED} more` : "";
  let text = `${capitalize(side)}: ${count(totals.files, "file")}, +${totals.additions} -${totals.deletions}${totals.binary > 0 ? `, ${totals.binary} binary` : ""}: ${files.join(", ")}${more}.`;
  if (diff.truncated) {
    text += ` The patch was cut at ${diff.returnedBytes} bytes${totals.uncounted > 0 ? `, so the lines of ${count(totals.uncounted, "file")} are not counted` : ""}; git_diff with offset ${diff.nextOffset} continues it.`;
  }
  return text;
}

function count(n: number, noun: string): string {
  return `${n} ${noun}${n === 1 ? "" : "s"}`;
}

function list(items: readonly string[]): string {
  return items.length <= MAX_FILES_LISTED
    ? items.join(", ")
    : `${items.slice(0, MAX_FILES_LISTED).join(", ")} and ${items.length - MAX_FILES_LISTED} more`;
}

function capitalize(text: string): string {
  return text.charAt(0).toUpperCase() + text.slice(1);
}

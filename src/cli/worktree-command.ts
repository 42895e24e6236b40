/**
 * `gitctx worktree create|list|remove|cleanup`: the worktree functions of the library for people and scripts.
 * A thin adapter: options become a library call, its result becomes output and an exit code. The library is
 * loaded when a subcommand runs, not when the program starts.
 */
import { type Command, InvalidArgumentError, Option } from "commander";
import { formatError, GitctxError } from "../errors.js";
import type { CreatedWorktree } from "../worktree/create.js";
import type { WorktreeSettings } from "../worktree/layout.js";
import type { WorktreeOptions } from "../worktree/library.js";
import type { CleanupReport, WorktreeInfo } from "../worktree/list.js";
import type { RemovedWorktree } from "../worktree/remove.js";
import { EXIT_OK, EXIT_TOOL_ERROR, type CliIO } from "./common.js";

const MODES = ["read-only", "workspace-write", "danger-full-access"] as const;
const FORMATS = ["json", "text"] as const;
type Format = (typeof FORMATS)[number];

const EXIT_CODES = `
Exit codes:
  0  success
  1  refused or failed: the message and hint on stderr, or {"ok": false, ...}
     on stdout with --format json (uncommitted_changes: the worktree holds
     work a removal would lose; worktree_locked: a session works in it)
  2  usage error: unknown command or option, bad --mode, --format or --older-than`;

interface CommonOptions {
  root?: string;
  dir?: string;
  mode?: (typeof MODES)[number];
  format?: Format;
  trustRepository?: boolean;
}

interface CreateOptions extends CommonOptions {
  base?: string;
  branchPrefix?: string;
  link?: string[];
  sparse?: string[];
  projectSettings?: boolean;
  include?: boolean;
  submodules?: boolean;
}

/** Adds `gitctx worktree` and its subcommands to the program. */
export function registerWorktreeCommand(program: Command, io: CliIO, setExitCode: (code: number) => void): void {
  const worktree = program
    .command("worktree")
    .description("create, list and remove isolated git worktrees (hardened: no hook, filter or fsmonitor runs)")
    .showHelpAfterError('(run "gitctx worktree --help" for usage)')
    .addHelpText(
      "after",
      `
Worktrees go to <main checkout>/.claude/worktrees/<name> on the branch
worktree-<name>; node_modules, .venv and vendor are linked from the main
checkout. gitctx removes only the worktrees it made, and refuses while a
removal would lose uncommitted files or commits on no other branch.

Examples:
  gitctx worktree create fix-login
  gitctx worktree list --format text
  gitctx worktree remove fix-login --dry-run
  gitctx worktree cleanup --older-than 14
${EXIT_CODES}`,
    );

  const common = (command: Command): Command =>
    command
      .option("--root <dir>", "a directory of the repository (default: the current directory)")
      .option("--dir <dir>", "the worktrees directory, relative to the main checkout or absolute (default: .claude/worktrees)")
      .addOption(new Option("--mode <mode>", "workspace-write (default) writes only inside the repository").choices(MODES))
      .addOption(new Option("--format <format>", "output format (default: text at a terminal, json otherwise)").choices(FORMATS))
      .option("--trust-repository", "use a repository owned by another user")
      .showHelpAfterError(`(run "gitctx worktree ${command.name()} --help" for usage)`)
      .addHelpText("after", EXIT_CODES);

  common(
    worktree
      .command("create")
      .description("create a worktree on a new branch worktree-<name> (or reopen one gitctx made)")
      .argument("[name]", "the worktree's name (default: generated)")
      .option("--base <rev>", "the revision the branch starts at (default: HEAD)")
      .option("--branch-prefix <prefix>", "prefix of the new branch (default: worktree-)")
      .option("--link <dirs>", "comma-separated directories to link from the main checkout (default: node_modules,.venv,vendor)", list)
      .option("--sparse <paths>", "comma-separated directories to check out alone (cone mode)", list)
      .option("--project-settings", "also read links and sparse paths from .claude/settings.json (its worktree object)")
      .option("--no-include", "do not copy the gitignored files .worktreeinclude selects")
      .option("--no-submodules", "leave submodules empty"),
  ).action(async (name: string | undefined, options: CreateOptions) => {
    await answer(io, setExitCode, options.format, async () => {
      const { createWorktree } = await import("../worktree/library.js");
      const settings: WorktreeSettings = settingsOf(options);
      if (options.branchPrefix !== undefined) settings.branchPrefix = options.branchPrefix;
      if (options.link !== undefined) settings.symlinkDirectories = options.link;
      if (options.sparse !== undefined) settings.sparsePaths = options.sparse;
      if (options.projectSettings === true) settings.projectSettings = true;
      if (options.include === false) settings.copyIncluded = false;
      if (options.submodules === false) settings.initSubmodules = false;
      const created = await createWorktree({
        ...libraryOptions(options, settings),
        ...(name !== undefined ? { name } : {}),
        ...(options.base !== undefined ? { base: options.base } : {}),
      });
      return { data: created, text: createdText(created) };
    });
  });

  common(
    worktree
      .command("list")
      .description("list every worktree of the repository: gitctx's and others', dirty, locked, missing, stale")
      .option("--older-than <days>", "days without use after which a gitctx worktree is stale (default: 7)", parseDays),
  ).action(async (options: CommonOptions & { olderThan?: number }) => {
    await answer(io, setExitCode, options.format, async () => {
      const { listWorktrees } = await import("../worktree/library.js");
      const listed = await listWorktrees({
        ...libraryOptions(options, settingsOf(options)),
        ...(options.olderThan !== undefined ? { olderThanDays: options.olderThan } : {}),
      });
      return { data: listed, text: listText(listed) };
    });
  });

  common(
    worktree
      .command("remove")
      .description("remove a worktree gitctx made and the branch it made; refuses while that would lose work")
      .argument("<name>", "the worktree's name")
      .option("--discard-changes", "remove even with uncommitted files or unmerged commits, deleting them")
      .option("--dry-run", "check and say what would be removed; change nothing"),
  ).action(async (name: string, options: CommonOptions & { discardChanges?: boolean; dryRun?: boolean }) => {
    await answer(io, setExitCode, options.format, async () => {
      const { removeWorktree } = await import("../worktree/library.js");
      const removed = await removeWorktree({
        ...libraryOptions(options, settingsOf(options)),
        name,
        ...(options.discardChanges === true ? { discardChanges: true } : {}),
        ...(options.dryRun === true ? { dryRun: true } : {}),
      });
      return { data: removed, text: removedText(removed) };
    });
  });

  common(
    worktree
      .command("cleanup")
      .description("remove stale gitctx worktrees: unused for --older-than days, held by no session, clean, nothing unmerged")
      .option("--older-than <days>", "days without use (default: 7)", parseDays)
      .option("--dry-run", "say what would be removed; change nothing"),
  ).action(async (options: CommonOptions & { olderThan?: number; dryRun?: boolean }) => {
    await answer(io, setExitCode, options.format, async () => {
      const { cleanupWorktrees } = await import("../worktree/library.js");
      const report = await cleanupWorktrees({
        ...libraryOptions(options, settingsOf(options)),
        ...(options.olderThan !== undefined ? { olderThanDays: options.olderThan } : {}),
        ...(options.dryRun === true ? { dryRun: true } : {}),
      });
      return { data: report, text: cleanupText(report) };
    });
  });
}

function settingsOf(options: CommonOptions): WorktreeSettings {
  return options.dir === undefined ? {} : { directory: options.dir };
}

function libraryOptions(options: CommonOptions, settings: WorktreeSettings): WorktreeOptions {
  return {
    ...(options.root !== undefined ? { root: options.root } : {}),
    ...(options.mode !== undefined ? { mode: options.mode } : {}),
    ...(options.trustRepository === true ? { trustRepository: true } : {}),
    settings,
  };
}

/** Runs the library call and prints its result, or its error (a `GitctxError`; anything else is a bug and propagates). */
async function answer(
  io: CliIO,
  setExitCode: (code: number) => void,
  format: Format | undefined,
  work: () => Promise<{ data: unknown; text: string }>,
): Promise<void> {
  const json = (format ?? (io.stdoutIsTerminal ? "text" : "json")) === "json";
  try {
    const { data, text } = await work();
    io.stdout.write(json ? `${JSON.stringify({ ok: true, data }, null, 2)}\n` : `${text}\n`);
    setExitCode(EXIT_OK);
  } catch (error) {
    if (!(error instanceof GitctxError)) throw error;
    const info = error.toInfo();
    if (json) io.stdout.write(`${JSON.stringify({ ok: false, error: info }, null, 2)}\n`);
    else io.stderr.write(`${formatError(info)}\n`);
    setExitCode(EXIT_TOOL_ERROR);
  }
}

function createdText(created: CreatedWorktree): string {
  const lines = [
    created.created
      ? `Created the worktree ${created.name} at ${created.path} on the new branch ${created.branch} (from ${created.base.slice(0, 12)}).`
      : `The worktree ${created.name} exists at ${created.path} (branch ${created.branch}); nothing was changed.`,
  ];
  for (const note of created.notes) lines.push(`- ${note}`);
  return lines.join("\n");
}

function listText(listed: readonly WorktreeInfo[]): string {
  return listed
    .map((worktree) => {
      const flags = [
        worktree.main ? "main" : "",
        worktree.gitctx ? `gitctx ${worktree.name}` : "",
        worktree.current ? "this one" : "",
        worktree.missing ? "missing (its directory is gone)" : "",
        worktree.dirty === true ? `dirty (${worktree.changedFiles} file${worktree.changedFiles === 1 ? "" : "s"})` : "",
        worktree.unmergedCommits !== null && worktree.unmergedCommits > 0
          ? `${worktree.unmergedCommits} unmerged commit${worktree.unmergedCommits === 1 ? "" : "s"}`
          : "",
        worktree.locked
          ? `locked${worktree.lockReason ? `: ${worktree.lockReason}` : ""}${worktree.lockHolderAlive === false ? " (that session is gone)" : ""}`
          : "",
        worktree.stale ? "stale" : "",
        worktree.problem !== null ? `unreadable: ${worktree.problem}` : "",
      ].filter(Boolean);
      return `${worktree.path}  ${worktree.branch ?? (worktree.head === null ? "(bare)" : `detached ${worktree.head.slice(0, 12)}`)}${flags.length === 0 ? "" : `  [${flags.join("; ")}]`}`;
    })
    .join("\n");
}

function removedText(removed: RemovedWorktree): string {
  const lost = removed.discarded.fileCount + removed.discarded.commitCount;
  const head = removed.dryRun
    ? removed.notes[0]!
    : `Removed the worktree ${removed.name} (${removed.path})${removed.branchDeleted ? ` and its branch ${removed.branch}` : ""}${lost > 0 ? `, discarding ${removed.discarded.fileCount} file(s) and ${removed.discarded.commitCount} commit(s)` : ""}.`;
  return [head, ...removed.notes.slice(removed.dryRun ? 1 : 0).map((note) => `- ${note}`)].join("\n");
}

function cleanupText(report: CleanupReport): string {
  const verb = report.dryRun ? "Would remove" : "Removed";
  const lines = [
    report.removed.length === 0
      ? `${verb} nothing (no stale, clean gitctx worktree unused for ${report.olderThanDays}+ days).`
      : `${verb} ${report.removed.length}:`,
  ];
  for (const removed of report.removed) lines.push(`  ${removed.name} (${removed.path}, branch ${removed.branch})`);
  if (report.kept.length > 0) lines.push(`Kept ${report.kept.length}:`);
  for (const kept of report.kept) lines.push(`  ${kept.name}: ${kept.reason}`);
  return lines.join("\n");
}

function list(value: string): string[] {
  return value
    .split(",")
    .map((item) => item.trim())
    .filter((item) => item !== "");
}

function parseDays(value: string): number {
  const days = /^[0-9]+(\.[0-9]+)?$/.test(value) ? Number(value) : Number.NaN;
  if (!(days >= 0)) throw new InvalidArgumentError("Expected a number of days of 0 or more, e.g. --older-than 7.");
  return days;
}

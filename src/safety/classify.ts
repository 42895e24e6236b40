/**
 * The git command safety classifier: a shell command line → `allow` (runs nothing beyond a read of the
 * repository), `ask` (a mutation, or something the classifier cannot see through) or `deny` (reads or writes
 * files outside the repository, or runs a program named on the command line). Pure and synchronous: the
 * repository's own config is an input (`repository`), gathered by `inspectRepository` in repository-check.ts.
 */
import { parseShell, type ShellCommand, type ShellRedirect, type ShellWord } from "./shell.js";
import { parseArgs, type OptionTable, type ParsedArgs } from "./options.js";
import {
  BLAME_OPTIONS,
  BRANCH_OPTIONS,
  CAT_FILE_OPTIONS,
  CHECK_IGNORE_OPTIONS,
  CHERRY_OPTIONS,
  CONFIG_OPTIONS,
  COUNT_OBJECTS_OPTIONS,
  DESCRIBE_OPTIONS,
  DIFF_COMMAND_OPTIONS,
  DIFF_TREE_OPTIONS,
  executableConfig,
  FOR_EACH_REF_OPTIONS,
  GREP_OPTIONS,
  harmlessConfig,
  LOG_OPTIONS,
  LS_FILES_OPTIONS,
  LS_TREE_OPTIONS,
  MERGE_BASE_OPTIONS,
  MUTATIONS,
  NAME_REV_OPTIONS,
  REMOTE_OPTIONS,
  REMOTE_SHOW_OPTIONS,
  REMOTE_GET_URL_OPTIONS,
  SHORTLOG_OPTIONS,
  SHOW_REF_OPTIONS,
  STASH_SHOW_OPTIONS,
  STATUS_OPTIONS,
  TAG_OPTIONS,
  WORKTREE_LIST_OPTIONS,
} from "./git-tables.js";

export type Verdict = "allow" | "ask" | "deny";

/**
 * `git`: a git invocation the classifier read. `indirect`: something that may run git where the classifier
 * cannot see how (`xargs git`, `sh -c`, `$GIT log`). `other`: a command that is not git, outside its scope.
 */
export type InvocationKind = "git" | "indirect" | "other";

export interface Invocation {
  kind: InvocationKind;
  /** The words of the command as the program receives them (an expanded word is shown as written). */
  argv: string[];
  /** The git subcommand (`status`, `stash list`...), or `null` for a non-git command or none. */
  subcommand: string | null;
  verdict: Verdict;
  reasons: string[];
  /** True for a git read command: its `allow` holds only if the repository's config runs no program. */
  read: boolean;
  /** The command as written in the command line. */
  source: string;
}

export interface Classification {
  verdict: Verdict;
  reasons: string[];
  invocations: Invocation[];
}

/** A setting of the repository's config that names a program git may run, found by `inspectRepository`. */
export interface ExecutableSetting {
  key: string;
  value: string;
  /** Where it was set: `local`, `worktree`, or the submodule path for a submodule's config. */
  scope: string;
  what: string;
}

/** What the repository check found out; the input that makes `allow` depend on the repository. */
export interface RepositoryFacts {
  root: string;
  executableSettings: ExecutableSetting[];
  /** Set when the repository could not be inspected (not a repository, another owner...): reads `ask`. */
  problem?: string;
}

export interface ClassifyOptions {
  /** Treat commands other than git as the caller's business: they no longer make the verdict `ask`. */
  ignoreNonGit?: boolean;
  /** The repository check's findings; without them, `allow` says nothing about the repository's config. */
  repository?: RepositoryFacts;
}

const STRICTNESS: Record<Verdict, number> = { allow: 0, ask: 1, deny: 2 };

export function stricter(a: Verdict, b: Verdict): Verdict {
  return STRICTNESS[a] >= STRICTNESS[b] ? a : b;
}

/** Classifies a shell command line. Pure and synchronous; never throws for any input string. */
export function classifyCommand(commandLine: string, options: ClassifyOptions = {}): Classification {
  const parsed = parseShell(commandLine);
  if (!parsed.ok) {
    return { verdict: "ask", reasons: [`the command line could not be parsed as shell: ${parsed.error}`], invocations: [] };
  }
  const invocations = parsed.commands.map((command) => classifyShellCommand(command));
  const gitSeen = invocations.some((inv) => inv.kind !== "other");

  // A runner (`sh`, `xargs`, `eval`...) in a command line that runs git may be fed git's output or run git itself.
  if (gitSeen) {
    for (const inv of invocations) {
      if (inv.kind === "other" && isRunner(inv.argv[0])) {
        inv.kind = "indirect";
        inv.verdict = "ask";
        inv.reasons = [`\`${inv.argv[0]}\` runs other commands; next to git it may run git or git's output, which cannot be classified`];
      }
    }
  }

  if (gitSeen && parsed.stateChanges.length > 0) {
    const kinds = [...new Set(parsed.stateChanges.map((s) => s.kind))].join(", ");
    for (const inv of invocations) {
      if (inv.kind === "other") continue;
      escalate(inv, "ask", `the command line changes the shell's state (${kinds}), so git may not run as written or where expected`);
    }
  }

  for (const inv of invocations) {
    if (inv.kind === "other") {
      if (options.ignoreNonGit === true) {
        inv.verdict = "allow";
        inv.reasons = ["not a git command (ignored by request)"];
      }
      continue;
    }
    if (inv.read && inv.verdict === "allow" && options.repository !== undefined) {
      applyRepositoryFacts(inv, options.repository);
    }
  }

  let verdict: Verdict = "allow";
  const reasons: string[] = [];
  for (const inv of invocations) verdict = stricter(verdict, inv.verdict);
  for (const inv of invocations) {
    if (inv.verdict === "allow") continue;
    for (const reason of inv.reasons) reasons.push(`${shorten(inv.source)}: ${reason}`);
  }
  if (invocations.length === 0) reasons.push("the command line runs nothing");
  return { verdict, reasons, invocations };
}

function applyRepositoryFacts(inv: Invocation, facts: RepositoryFacts): void {
  const command = `git ${inv.subcommand ?? ""}`.trim();
  if (facts.problem !== undefined) {
    escalate(inv, "ask", `the repository at ${facts.root} could not be checked: ${facts.problem}`);
    return;
  }
  if (facts.executableSettings.length === 0) return;
  const keys = [...new Set(facts.executableSettings.map((s) => s.key))];
  escalate(inv, "ask", `running \`${command}\` here may execute programs named by the repository's config: ${keys.join(", ")}`);
}

/** Raises an invocation's verdict; the description that came with an `allow` gives way to the reason. */
function escalate(inv: { verdict: Verdict; reasons: string[] }, verdict: Verdict, reason: string): void {
  if (inv.verdict === "allow" && verdict !== "allow") inv.reasons = [];
  inv.verdict = stricter(inv.verdict, verdict);
  if (!inv.reasons.includes(reason)) inv.reasons.push(reason);
}

function shorten(source: string): string {
  const flat = source.replace(/\s+/g, " ").trim();
  return flat.length > 80 ? `${flat.slice(0, 77)}...` : flat;
}

// ---------------------------------------------------------------------------------------------------------
// One simple command.

const STANDARD_GIT_PATHS = new Set(["/usr/bin/git", "/usr/local/bin/git", "/bin/git", "/opt/homebrew/bin/git", "/usr/local/git/bin/git"]);

/** Commands that run other commands from their arguments or their input. */
const RUNNERS = new Set([
  "xargs", "sh", "bash", "zsh", "dash", "ksh", "mksh", "fish", "csh", "tcsh", "busybox", "env", "sudo", "doas", "su",
  "runuser", "nohup", "nice", "ionice", "timeout", "command", "builtin", "exec", "eval", "source", ".", "watch",
  "strace", "ltrace", "stdbuf", "unbuffer", "script", "flock", "chroot", "parallel", "find", "fd", "entr", "setsid",
  "chronic", "ssh", "python", "python3", "perl", "ruby", "node", "deno", "bun", "php", "lua", "awk", "gawk", "tclsh",
  "make", "npx", "time", "trap", "coproc", "tmux", "screen", "xterm", "fc",
]);

function isRunner(name: string | undefined): boolean {
  if (name === undefined) return false;
  return RUNNERS.has(name.split("/").pop() ?? name);
}

const GIT_WORD = /(^|[\s/;&|'"`(=])git([\s;&|'"`)]|-[a-z]|$)/;

function display(word: ShellWord): string {
  return word.value ?? word.source;
}

function classifyShellCommand(command: ShellCommand): Invocation {
  const argv = command.words.map(display);
  const make = (kind: InvocationKind, subcommand: string | null, verdict: Verdict, reasons: string[], read = false): Invocation => ({
    kind,
    argv,
    subcommand,
    verdict,
    reasons,
    read,
    source: command.source,
  });
  const name = command.words[0];
  if (name === undefined) return make("other", null, "ask", [describeNonGit(command)]);
  if (name.value === undefined) {
    return make("indirect", null, "ask", [`the command name is computed (${name.dynamic.join(", ")}): it may run git, and what it runs cannot be known`]);
  }
  const program = name.value;
  const baseName = program.split("/").pop() ?? program;
  if (program === "git" || STANDARD_GIT_PATHS.has(program)) {
    const inv = classifyGitCommand(command);
    for (const ctx of command.context) {
      if (ctx === "background job") continue;
      escalate(inv, "ask", `runs inside a ${ctx}, where its effect on the rest of the command line cannot be judged`);
    }
    return make("git", inv.subcommand, inv.verdict, inv.reasons, inv.read);
  }
  if (baseName === "git" || baseName.startsWith("git-")) {
    return make("indirect", null, "ask", [`runs ${program}, not the git on PATH: a program of that name may be anything`]);
  }
  if (isRunner(program) && command.words.slice(1).some((w) => GIT_WORD.test(w.value ?? w.source))) {
    return make("indirect", null, "ask", [`runs git through \`${baseName}\`: the git call inside cannot be classified`]);
  }
  return make("other", null, "ask", [describeNonGit(command)]);
}

function describeNonGit(command: ShellCommand): string {
  const name = command.words[0]?.value;
  if (name === undefined) return "a shell construct that is not a git command: outside the classifier's scope";
  return `\`${name}\` is not a git command: outside the classifier's scope`;
}

// ---------------------------------------------------------------------------------------------------------
// A git invocation: environment, redirections, global options, subcommand.

interface GitVerdict {
  kind: InvocationKind;
  subcommand: string | null;
  verdict: Verdict;
  reasons: string[];
  read: boolean;
}

class Findings {
  verdict: Verdict = "allow";
  readonly reasons: string[] = [];
  add(verdict: Verdict, reason: string): void {
    this.verdict = stricter(this.verdict, verdict);
    if (!this.reasons.includes(reason)) this.reasons.push(reason);
  }
}

function classifyGitCommand(command: ShellCommand): GitVerdict {
  const findings = new Findings();
  for (const assignment of command.assignments) checkEnvironment(assignment.name, assignment.value, findings);
  for (const redirect of command.redirects) checkRedirect(redirect, findings);
  const words = command.words.slice(1);
  const dashdashAt = words.findIndex((w) => w.value === "--");
  const dynamic = words.filter(
    (w, i) => w.value === undefined && !(dashdashAt !== -1 && i > dashdashAt && w.dynamic.every((d) => d === "glob" || d === "brace expansion")),
  );
  if (dynamic.length > 0) {
    for (const w of dynamic) {
      findings.add("ask", `the argument ${w.source} is expanded by the shell (${w.dynamic.join(", ")}): its value, and so what git does, is not known`);
    }
  }
  // Classify with the literal words. An expanded word stands in as a placeholder that is never an option,
  // unless its literal start already makes it one (`--output=$FILE` is `--output` whatever the value).
  const dashdash = words.findIndex((w) => w.value === "--");
  const args = words.map((w, i) => {
    if (w.value !== undefined) return w.value;
    // After `--` a glob only names files, and git reads every one as a path: the pattern stands for them.
    if (dashdash !== -1 && i > dashdash && w.dynamic.every((d) => d === "glob" || d === "brace expansion")) return w.source;
    return w.prefix.startsWith("-") ? w.prefix : "\u0000expanded";
  });
  const result = classifyGitArgs(args);
  const verdict = stricter(findings.verdict, result.verdict);
  const reasons = [...findings.reasons];
  for (const reason of result.reasons) if (!reasons.includes(reason)) reasons.push(reason);
  if (verdict === "allow" && reasons.length === 0) reasons.push(result.summary);
  return { kind: "git", subcommand: result.subcommand, verdict, reasons, read: result.read };
}

/** Environment variables that only change messages, time zone or terminal handling. */
function harmlessEnvironment(name: string, value: string): boolean {
  if (/^(LANG|LANGUAGE|LC_[A-Z]+|TZ|NO_COLOR|TERM|COLUMNS|LINES|GIT_TERMINAL_PROMPT|GIT_OPTIONAL_LOCKS|GIT_FLUSH)$/.test(name)) return true;
  return (name === "GIT_PAGER" || name === "PAGER") && (value === "cat" || value === "");
}

/** Environment variables that make git run a program, or read or write a file, of the caller's choosing. */
const DANGEROUS_ENVIRONMENT =
  /^(GIT_EXTERNAL_DIFF|GIT_PAGER|PAGER|GIT_EDITOR|EDITOR|VISUAL|GIT_SEQUENCE_EDITOR|GIT_SSH|GIT_SSH_COMMAND|GIT_ASKPASS|SSH_ASKPASS|GIT_PROXY_COMMAND|GIT_EXEC_PATH|GIT_CONFIG_PARAMETERS|GIT_CONFIG_COUNT|GIT_CONFIG_KEY_\d+|GIT_CONFIG_VALUE_\d+|GIT_CONFIG|GIT_CONFIG_GLOBAL|GIT_CONFIG_SYSTEM|GIT_TRACE\w*|GIT_TEMPLATE_DIR|LD_\w+|DYLD_\w+|PATH|BASH_ENV|ENV|HOME|XDG_CONFIG_HOME|LESSOPEN|LESSCLOSE|GIT_ALLOW_PROTOCOL|GIT_PROTOCOL_FROM_USER)$/;

function checkEnvironment(name: string, value: ShellWord | undefined, findings: Findings): void {
  const literal = value === undefined ? "" : value.value;
  if (literal !== undefined && harmlessEnvironment(name, literal)) return;
  if (DANGEROUS_ENVIRONMENT.test(name)) {
    findings.add("deny", `sets ${name}, which makes git run a program or read or write a file of the caller's choosing`);
    return;
  }
  findings.add("ask", `sets ${name} for git: not a plain git call`);
}

function checkRedirect(redirect: ShellRedirect, findings: Findings): void {
  const target = redirect.target.value;
  // Here-documents and here-strings are part of the command line itself.
  if (redirect.op === "<<" || redirect.op === "<<-" || redirect.op === "<<<") return;
  if (redirect.op === "<") {
    // `git cat-file --batch-check < /etc/shadow` echoes every line it cannot resolve: a read of any file.
    if (target !== "/dev/null") findings.add("ask", `the shell feeds ${target ?? redirect.target.source} to git's input, and git may print what it reads`);
    return;
  }
  if (target === undefined) {
    findings.add("ask", `redirects to ${redirect.target.source}, which the shell expands (${redirect.target.dynamic.join(", ")})`);
    return;
  }
  if ((redirect.op === ">&" || redirect.op === "<&") && /^([0-9]+|-)$/.test(target)) return;
  if (redirect.op === "<&") return;
  if (target === "/dev/null" || target === "/dev/stdout" || target === "/dev/stderr") return;
  findings.add("ask", `the shell writes git's output to ${target} (${redirect.op})`);
}

interface ArgsVerdict {
  subcommand: string | null;
  verdict: Verdict;
  reasons: string[];
  read: boolean;
  /** A one-line description for an `allow` without findings. */
  summary: string;
}

/**
 * Classifies git's arguments (the words after `git`). Exported for `hardenedArgv` and tests; callers with a
 * shell command line use `classifyCommand`.
 */
export function classifyGitArgs(args: readonly string[]): ArgsVerdict & { globals: GlobalOption[]; rest: string[] } {
  const findings = new Findings();
  const { globals, index, info } = parseGlobals(args, findings);
  const rest = args.slice(index);
  if (info !== undefined) {
    return { subcommand: info, verdict: findings.verdict, reasons: findings.reasons, read: false, summary: `git ${info} prints information`, globals, rest: [] };
  }
  const sub = rest[0];
  if (sub === undefined) {
    return { subcommand: null, verdict: findings.verdict, reasons: findings.reasons, read: false, summary: "git without a command prints its usage", globals, rest };
  }
  const handler = READ_COMMANDS[sub];
  let outcome: SubVerdict;
  if (sub.startsWith("\u0000")) {
    outcome = { subcommand: null, findings: [["ask", "the git subcommand is expanded by the shell"]], read: false };
  } else if (handler !== undefined) {
    outcome = handler(rest.slice(1));
  } else {
    outcome = classifyOther(sub, rest.slice(1));
  }
  for (const [verdict, reason] of outcome.findings) findings.add(verdict, reason);
  const subcommand = outcome.subcommand ?? sub;
  return {
    subcommand,
    verdict: findings.verdict,
    reasons: findings.reasons,
    read: outcome.read,
    summary: `git ${subcommand} only reads the repository`,
    globals,
    rest,
  };
}

export interface GlobalOption {
  tokens: string[];
  /** Whether `hardenedArgv` may keep it (pathspec and namespace options); the rest it drops or refuses. */
  keep: boolean;
}

/** The global options before the subcommand (git.c `handle_options`: exact names, no abbreviations). */
function parseGlobals(args: readonly string[], findings: Findings): { globals: GlobalOption[]; index: number; info?: string } {
  const globals: GlobalOption[] = [];
  let i = 0;
  while (i < args.length) {
    const token = args[i]!;
    if (!token.startsWith("-")) break;
    i++;
    const valueOf = (prefix: string): { value: string | undefined; tokens: string[] } => {
      if (token === prefix) {
        const value = args[i];
        if (value !== undefined) i++;
        return { value, tokens: value === undefined ? [token] : [token, value] };
      }
      return { value: token.slice(prefix.length + 1), tokens: [token] };
    };
    switch (true) {
      case ["-p", "--paginate", "-P", "--no-pager", "--no-replace-objects", "--no-optional-locks"].includes(token):
        globals.push({ tokens: [token], keep: false });
        continue;
      case ["--literal-pathspecs", "--glob-pathspecs", "--noglob-pathspecs", "--icase-pathspecs"].includes(token):
        globals.push({ tokens: [token], keep: true });
        continue;
      case token === "--namespace" || token.startsWith("--namespace="):
        globals.push({ tokens: valueOf("--namespace").tokens, keep: true });
        continue;
      case token === "--git-dir" || token.startsWith("--git-dir="):
        globals.push({ tokens: valueOf("--git-dir").tokens, keep: false });
        findings.add("ask", "runs against a repository named on the command line (--git-dir), whose config is not checked");
        continue;
      case token === "--work-tree" || token.startsWith("--work-tree="):
        globals.push({ tokens: valueOf("--work-tree").tokens, keep: false });
        findings.add("ask", "uses a work tree named on the command line (--work-tree)");
        continue;
      case token === "--bare":
        globals.push({ tokens: [token], keep: false });
        findings.add("ask", "treats the current directory as a bare repository (--bare), whose config is not checked");
        continue;
      case token === "-C": {
        const { value, tokens } = valueOf("-C");
        globals.push({ tokens, keep: false });
        findings.add("ask", `runs in another directory (-C ${value ?? ""}), whose repository and config are not checked`.replace(" )", ")"));
        continue;
      }
      case token === "-c": {
        const { value, tokens } = valueOf("-c");
        globals.push({ tokens, keep: false });
        checkConfigOverride(value ?? "", findings, "-c");
        continue;
      }
      case token === "--config-env" || token.startsWith("--config-env="): {
        const { value, tokens } = valueOf("--config-env");
        globals.push({ tokens, keep: false });
        const key = (value ?? "").split("=")[0] ?? "";
        if (executableConfig(key) !== undefined) {
          findings.add("deny", `sets ${key} from the environment (--config-env), a setting that names a program or file git uses`);
        } else if (!harmlessConfig(key)) {
          findings.add("ask", `sets config ${key} for this command (--config-env)`);
        }
        continue;
      }
      case token.startsWith("--exec-path="):
        globals.push({ tokens: [token], keep: false });
        findings.add("deny", "runs git's helper programs from a directory of the caller's choosing (--exec-path=)");
        continue;
      case token === "--super-prefix" || token.startsWith("--super-prefix="):
        globals.push({ tokens: valueOf("--super-prefix").tokens, keep: false });
        findings.add("ask", "uses git's internal --super-prefix option");
        continue;
      case ["--exec-path", "--html-path", "--man-path", "--info-path"].includes(token) || token.startsWith("--list-cmds="):
        globals.push({ tokens: [token], keep: false });
        return { globals, index: i, info: token.slice(2).replace(/=.*/, "") };
      case token === "-v" || token === "--version":
        globals.push({ tokens: [token], keep: false });
        return { globals, index: i, info: "version" };
      case token === "-h" || token === "--help":
        globals.push({ tokens: [token], keep: false });
        findings.add("ask", "git --help opens the manual, which runs a man page viewer or web browser");
        return { globals, index: i, info: "help" };
      default:
        globals.push({ tokens: [token], keep: false });
        findings.add("ask", `unknown global option ${token}`);
        continue;
    }
  }
  return { globals, index: i };
}

/** Values that switch a program-naming setting off rather than point it at a program. */
function disables(key: string, value: string | undefined): boolean {
  const lower = key.toLowerCase();
  const v = (value ?? "").trim();
  if (lower === "core.fsmonitor") return /^(false|no|off|0|)$/i.test(v);
  if (lower === "core.pager" || lower.startsWith("pager.")) return v === "cat" || /^(false|no|off|0|)$/i.test(v);
  if (lower === "core.hookspath") return v === "/dev/null";
  return v === "" && (lower === "diff.external" || lower.endsWith(".helper"));
}

function checkConfigOverride(setting: string, findings: Findings, flag: string): void {
  const eq = setting.indexOf("=");
  const key = eq === -1 ? setting : setting.slice(0, eq);
  const value = eq === -1 ? undefined : setting.slice(eq + 1);
  const what = executableConfig(key);
  if (what !== undefined && !disables(key, value)) {
    if (/^alias\./i.test(key) && !(value ?? "").trimStart().startsWith("!")) {
      findings.add("ask", `defines the alias ${key.slice(6)} for this command (${flag})`);
    } else {
      findings.add("deny", `sets ${key}${value === undefined ? "" : `=${value}`} (${flag}): ${what}`);
    }
    return;
  }
  if (what === undefined && !harmlessConfig(key)) findings.add("ask", `sets config ${key} for this command (${flag})`);
}

// ---------------------------------------------------------------------------------------------------------
// Subcommands.

type Finding = [Verdict, string];

interface SubVerdict {
  /** A refined name such as `stash list`; `null` keeps the word as given. */
  subcommand: string | null;
  findings: Finding[];
  read: boolean;
}

/** Findings common to every parsed argument list: denied options, then options this model does not know. */
function optionFindings(parsed: ParsedArgs): Finding[] {
  const out: Finding[] = [];
  for (const d of parsed.denied) out.push(["deny", d.reason === "" ? `${d.spelling} is not allowed` : `${d.reason}: ${d.spelling}`]);
  for (const u of parsed.unknown) out.push(["ask", `${u.token}: ${u.why}, so what git does with it is not known`]);
  for (const o of parsed.options) {
    if (o.def?.effect.kind === "ask") out.push(["ask", `${o.def.effect.reason}: ${o.spelling}`]);
  }
  return out;
}

function readWith(t: OptionTable, abbreviations: boolean, extra?: (parsed: ParsedArgs) => Finding[]): (args: string[]) => SubVerdict {
  return (args) => {
    const parsed = parseArgs(t, args, { abbreviations });
    return { subcommand: null, findings: [...optionFindings(parsed), ...(extra?.(parsed) ?? [])], read: true };
  };
}

/**
 * `git diff a b` where a path lies outside the work tree is `git diff --no-index`: it reads any file. A
 * relative path that climbs (`..`) or an absolute one may be outside; the classifier cannot tell, so it denies.
 */
function implicitNoIndex(parsed: ParsedArgs): Finding[] {
  const outside = [...parsed.positionals, ...parsed.paths].filter((p) => !p.startsWith("\u0000") && (p.startsWith("/") || p.split("/").includes("..")));
  return outside.length === 0
    ? []
    : [["deny", `compares files that may lie outside the repository (${outside.join(", ")}): git diff then acts as --no-index and reads any file`]];
}

const READ_COMMANDS: Record<string, (args: string[]) => SubVerdict> = {
  status: readWith(STATUS_OPTIONS, true),
  diff: readWith(DIFF_COMMAND_OPTIONS, false, implicitNoIndex),
  log: readWith(LOG_OPTIONS, false),
  show: readWith(LOG_OPTIONS, false),
  whatchanged: readWith(LOG_OPTIONS, false),
  "rev-list": readWith(LOG_OPTIONS, false),
  shortlog: readWith(SHORTLOG_OPTIONS, false),
  "diff-tree": readWith(DIFF_TREE_OPTIONS, false),
  "diff-index": readWith(DIFF_TREE_OPTIONS, false),
  "diff-files": readWith(DIFF_TREE_OPTIONS, false),
  blame: readWith(BLAME_OPTIONS, true),
  annotate: readWith(BLAME_OPTIONS, true),
  "merge-base": readWith(MERGE_BASE_OPTIONS, true),
  describe: readWith(DESCRIBE_OPTIONS, true),
  "ls-files": readWith(LS_FILES_OPTIONS, true),
  "ls-tree": readWith(LS_TREE_OPTIONS, true),
  "cat-file": readWith(CAT_FILE_OPTIONS, true),
  grep: readWith(GREP_OPTIONS, true),
  "for-each-ref": readWith(FOR_EACH_REF_OPTIONS, true),
  "show-ref": readWith(SHOW_REF_OPTIONS, true),
  "name-rev": readWith(NAME_REV_OPTIONS, true),
  "check-ignore": readWith(CHECK_IGNORE_OPTIONS, true),
  "count-objects": readWith(COUNT_OBJECTS_OPTIONS, true),
  cherry: readWith(CHERRY_OPTIONS, true),
  // rev-parse never runs a program or writes: it prints, and passes unknown options through as text.
  "rev-parse": () => ({ subcommand: null, findings: [], read: true }),
  version: () => ({ subcommand: null, findings: [], read: false }),
  help: () => ({ subcommand: null, findings: [["ask", "git help opens the manual, which runs a man page viewer or web browser"]], read: false }),
  branch: classifyBranch,
  tag: classifyTag,
  reflog: classifyReflog,
  remote: classifyRemote,
  stash: classifyStash,
  worktree: classifyWorktree,
  config: classifyConfig,
};

/** The read commands the classifier knows, for documentation and tests. */
export const READ_SUBCOMMANDS: readonly string[] = Object.keys(READ_COMMANDS);

function modesOf(parsed: ParsedArgs): Set<string> {
  const modes = new Set<string>();
  for (const o of parsed.options) if (o.def?.effect.kind === "mode") modes.add(o.def.effect.mode);
  return modes;
}

function classifyBranch(args: string[]): SubVerdict {
  const parsed = parseArgs(BRANCH_OPTIONS, args, { abbreviations: true });
  const findings = optionFindings(parsed);
  const modes = modesOf(parsed);
  const mutations: Record<string, string> = {
    delete: "deletes branches (-d)",
    "force-delete": "force-deletes branches, even unmerged ones (-D)",
    rename: "renames a branch (-m)",
    "force-rename": "renames a branch over an existing one (-M)",
    copy: "copies a branch (-c)",
    "force-copy": "copies a branch over an existing one (-C)",
    force: "forces the operation (--force)",
    change: "changes branch settings (upstream, tracking, reflog)",
    edit: "opens an editor for the branch description (--edit-description)",
  };
  const changes = Object.entries(mutations).filter(([m]) => modes.has(m));
  for (const [, reason] of changes) findings.push(["ask", reason]);
  const names = [...parsed.positionals, ...parsed.paths];
  if (changes.length === 0 && names.length > 0 && !modes.has("list") && !modes.has("show-current")) {
    findings.push(["ask", `creates the branch ${names[0]}`]);
    return { subcommand: "branch", findings, read: false };
  }
  return { subcommand: changes.length > 0 ? "branch" : "branch (list)", findings, read: changes.length === 0 };
}

function classifyTag(args: string[]): SubVerdict {
  const parsed = parseArgs(TAG_OPTIONS, args, { abbreviations: true });
  const findings = optionFindings(parsed);
  const modes = modesOf(parsed);
  if (modes.has("delete")) findings.push(["ask", "deletes tags (-d)"]);
  if (modes.has("force")) findings.push(["ask", "moves an existing tag (--force)"]);
  if (modes.has("create")) findings.push(["ask", "creates a tag"]);
  const names = [...parsed.positionals, ...parsed.paths];
  const mutates = modes.has("delete") || modes.has("force") || modes.has("create");
  if (!mutates && names.length > 0 && !modes.has("list")) {
    findings.push(["ask", `creates the tag ${names[0]}`]);
    return { subcommand: "tag", findings, read: false };
  }
  return { subcommand: mutates ? "tag" : "tag (list)", findings, read: !mutates };
}

function classifyReflog(args: string[]): SubVerdict {
  const first = args[0];
  if (first === undefined || first.startsWith("-") || first === "show") {
    const rest = first === "show" ? args.slice(1) : args;
    const parsed = parseArgs(LOG_OPTIONS, rest, { abbreviations: false });
    return { subcommand: "reflog show", findings: optionFindings(parsed), read: true };
  }
  if (first === "exists") return { subcommand: "reflog exists", findings: [], read: true };
  if (first === "expire" || first === "delete") return { subcommand: `reflog ${first}`, findings: [["ask", "deletes reflog entries"]], read: false };
  // `git reflog <ref>` is `git reflog show <ref>`.
  const parsed = parseArgs(LOG_OPTIONS, args, { abbreviations: false });
  return { subcommand: "reflog show", findings: optionFindings(parsed), read: true };
}

function classifyRemote(args: string[]): SubVerdict {
  const head = parseArgs(REMOTE_OPTIONS, args, { abbreviations: true, stopAtPositional: true });
  const findings = optionFindings({ ...head, positionals: [], paths: [] });
  const [action, ...rest] = [...head.positionals, ...head.paths];
  if (action === undefined) return { subcommand: "remote", findings, read: true };
  if (action === "show") {
    const parsed = parseArgs(REMOTE_SHOW_OPTIONS, rest, { abbreviations: true });
    findings.push(...optionFindings(parsed));
    if (!parsed.options.some((o) => o.name === "n")) {
      findings.push(["ask", "contacts the remote to list its branches (add -n to stay local)"]);
      return { subcommand: "remote show", findings, read: false };
    }
    return { subcommand: "remote show", findings, read: true };
  }
  if (action === "get-url") {
    const parsed = parseArgs(REMOTE_GET_URL_OPTIONS, rest, { abbreviations: true });
    return { subcommand: "remote get-url", findings: [...findings, ...optionFindings(parsed)], read: true };
  }
  const what: Record<string, string> = {
    add: "adds a remote",
    rename: "renames a remote",
    rm: "removes a remote",
    remove: "removes a remote",
    "set-head": "changes a remote's HEAD",
    "set-branches": "changes a remote's branches",
    "set-url": "changes a remote's URL",
    prune: "deletes stale remote-tracking branches",
    update: "fetches from remotes",
  };
  findings.push(["ask", what[action] ?? `runs git remote ${action}`]);
  return { subcommand: `remote ${action}`, findings, read: false };
}

function classifyStash(args: string[]): SubVerdict {
  const action = args[0];
  if (action === "list") {
    const parsed = parseArgs(LOG_OPTIONS, args.slice(1), { abbreviations: false });
    return { subcommand: "stash list", findings: optionFindings(parsed), read: true };
  }
  if (action === "show") {
    const parsed = parseArgs(STASH_SHOW_OPTIONS, args.slice(1), { abbreviations: false });
    return { subcommand: "stash show", findings: optionFindings(parsed), read: true };
  }
  const what: Record<string, string> = {
    drop: "deletes a stash entry (git stash drop)",
    clear: "deletes every stash entry (git stash clear)",
    pop: "applies a stash entry to the work tree and deletes it",
    apply: "applies a stash entry to the work tree",
    branch: "creates a branch from a stash entry",
    push: "stashes local changes and resets the work tree",
    save: "stashes local changes and resets the work tree",
    create: "creates a stash commit",
    store: "stores a stash entry",
  };
  if (action === undefined || action.startsWith("-")) {
    return { subcommand: "stash push", findings: [["ask", what.push!]], read: false };
  }
  return { subcommand: `stash ${action}`, findings: [["ask", what[action] ?? `runs git stash ${action}`]], read: false };
}

function classifyWorktree(args: string[]): SubVerdict {
  const action = args[0];
  if (action === "list") {
    const parsed = parseArgs(WORKTREE_LIST_OPTIONS, args.slice(1), { abbreviations: true });
    return { subcommand: "worktree list", findings: optionFindings(parsed), read: true };
  }
  const findings: Finding[] = [["ask", action === undefined ? "git worktree without an action" : `changes worktrees (git worktree ${action})`]];
  findings.push(...notableFindings("worktree", args.slice(1)));
  return { subcommand: action === undefined ? "worktree" : `worktree ${action}`, findings, read: false };
}

function classifyConfig(args: string[]): SubVerdict {
  const parsed = parseArgs(CONFIG_OPTIONS, args, { abbreviations: true });
  const findings = optionFindings(parsed);
  const modes = modesOf(parsed);
  const names = [...parsed.positionals, ...parsed.paths];
  const writes = modes.has("set") || modes.has("edit") || (!modes.has("get") && names.length >= 2);
  if (modes.has("edit")) findings.push(["ask", "opens the config in an editor (--edit)"]);
  if (writes && !modes.has("edit")) {
    const key = names[0] ?? "";
    const what = executableConfig(key);
    findings.push(["ask", what === undefined ? `writes the config key ${key}` : `writes the config key ${key}, which ${what}`]);
  }
  return { subcommand: writes ? "config (write)" : "config (read)", findings, read: !writes };
}

/** Commands outside the read allowlist: `ask`, or `deny` for the options that run or touch what they must not. */
function classifyOther(sub: string, args: string[]): SubVerdict {
  const spec = MUTATIONS[sub];
  const findings: Finding[] = [];
  if (spec !== undefined) findings.push(["ask", `git ${sub} ${spec.summary}`]);
  else if (KNOWN_COMMANDS.has(sub)) findings.push(["ask", `git ${sub} is not a read command on the allowlist`]);
  else findings.push(["ask", `git ${sub} is not a git command: it may be an alias or an external git-${sub} program`]);
  findings.push(...notableFindings(sub, args));
  if (sub === "bisect" && args[0] === "run") findings.push(["deny", "runs a command of the caller's choosing (git bisect run)"]);
  if (sub === "submodule" && args.includes("foreach")) findings.push(["deny", "runs a shell command in every submodule (git submodule foreach)"]);
  if (sub === "config") findings.push(...classifyConfig(args).findings);
  return { subcommand: sub, findings, read: false };
}

/** Options that deny anywhere, matched exactly or as an abbreviation (three or more letters). */
const UNIVERSAL_DENIED: Record<string, string> = {
  "upload-pack": "runs a program of the caller's choosing (--upload-pack)",
  "receive-pack": "runs a program of the caller's choosing (--receive-pack)",
  "open-files-in-pager": "runs a program on the matching files (--open-files-in-pager)",
  "ext-diff": "runs the external diff program named in config (--ext-diff)",
  textconv: "runs the textconv programs named in config (--textconv)",
  output: "writes git's output to a file of the caller's choosing (--output)",
  "no-index": "reads files outside the repository (--no-index)",
  "exec-path": "runs git's helper programs from a directory of the caller's choosing (--exec-path)",
};

function notableFindings(sub: string, args: string[]): Finding[] {
  const spec = MUTATIONS[sub];
  const denied: Record<string, string> = { ...UNIVERSAL_DENIED, ...(spec?.denied ?? {}) };
  const notable = spec?.notable ?? {};
  const out: Finding[] = [];
  const seen = new Set<string>();
  const push = (f: Finding): void => {
    if (!seen.has(f[1])) {
      seen.add(f[1]);
      out.push(f);
    }
  };
  let skipNext = false;
  for (const token of args) {
    if (skipNext) {
      skipNext = false;
      continue;
    }
    if (token === "--") break;
    if (token.startsWith("--")) {
      const name = token.slice(2).split("=")[0]!;
      for (const reason of matchingLong(denied, name)) push(["deny", `${reason}: ${token}`]);
      for (const reason of matchingLong(notable, name)) push(["ask", reason]);
      continue;
    }
    if (token.startsWith("-") && token.length > 1) {
      for (let k = 1; k < token.length; k++) {
        const letter = token[k]!;
        if (denied[letter] !== undefined) push(["deny", `${denied[letter]!}: ${token}`]);
        if (notable[letter] !== undefined) push(["ask", notable[letter]!]);
        if (spec?.shortWithValue.includes(letter) === true) {
          if (k === token.length - 1) skipNext = true;
          break;
        }
      }
      continue;
    }
    if (sub === "push" && token.startsWith(":") && token.length > 1) push(["ask", `deletes the remote ref ${token.slice(1)} (${token})`]);
    if (sub === "push" && token.startsWith("+")) push(["ask", `force-pushes ${token.slice(1)} (+refspec)`]);
    if ((sub === "checkout" || sub === "restore") && token === ".") push(["ask", "overwrites every file with its committed version, discarding local changes"]);
  }
  if (sub === "checkout" && args.includes("--") && args.indexOf("--") < args.length - 1) {
    push(["ask", "overwrites the named files with their committed version, discarding local changes"]);
  }
  if (sub === "restore" && !args.some((a) => a === "--staged" || a === "-S")) {
    push(["ask", "overwrites files in the work tree, discarding local changes"]);
  }
  return out;
}

/** The entries an option name means: the exact one, else every one it abbreviates (three letters or more). */
function matchingLong(entries: Record<string, string>, name: string): string[] {
  const longs = Object.keys(entries).filter((k) => k.length > 1);
  if (longs.includes(name)) return [entries[name]!];
  if (name.length < 3) return [];
  return longs.filter((k) => k.startsWith(name)).map((k) => entries[k]!);
}

const KNOWN_COMMANDS = new Set(
  `add am apply archive bisect bundle checkout cherry-pick citool clean clone commit difftool fetch format-patch gc
  gitk gui init maintenance merge mergetool mv notes pull push range-diff rebase reset restore revert rm
  send-email sparse-checkout stash submodule switch tag worktree fsck prune repack replace request-pull
  update-ref update-index write-tree read-tree commit-tree symbolic-ref hash-object checkout-index pack-objects
  unpack-objects prune-packed mktag mktree multi-pack-index pack-refs credential daemon fast-export fast-import
  filter-branch hook instaweb ls-remote var verify-commit verify-tag verify-pack show-branch get-tar-commit-id
  merge-file merge-tree merge-index merge-one-file mailinfo mailsplit interpret-trailers column check-attr
  check-mailmap check-ref-format bugreport diagnose fetch-pack send-pack upload-pack receive-pack upload-archive
  http-backend shell svn p4 cvsimport cvsserver archimport quiltimport imap-send rerere sh-i18n stripspace
  config annotate backfill`
    .split(/\s+/)
    .filter((s) => s !== ""),
);

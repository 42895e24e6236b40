/**
 * The git command safety classifier: a shell command line → `allow`, `ask` or `deny`. The rule is "allow only
 * what is fully understood": `allow` is a promise that running the exact line reads the repository and nothing
 * else, whatever the shell expands and whatever the repository's config says. `ask`: a mutation, or anything
 * the classifier cannot see through (an expanded word where git reads an option or a path, an unknown option
 * or verb, a shell construct that may execute). `deny`: reads or writes files outside the repository, or runs
 * a program named on the command line.
 *
 * Pure and synchronous. The repository's side (its config, hooks, layout) is an input, `RepositoryFacts`,
 * gathered by the repository check; the directory the line runs in is `cwd`.
 */
import { parseShell, type ShellCommand, type ShellRedirect, type ShellWord } from "./shell.js";
import { literalToken, parseArgs, type ArgToken, type OptionTable, type ParsedArgs, type ParseSettings } from "./options.js";
import {
  BLAME_OPTIONS,
  BRANCH_OPTIONS,
  CAT_FILE_OPTIONS,
  CHECK_IGNORE_OPTIONS,
  CHERRY_OPTIONS,
  CONFIG_OPTIONS,
  CONFIG_READ_VERBS,
  CONFIG_VERB_OPTIONS,
  CONFIG_WRITE_VERBS,
  COUNT_OBJECTS_OPTIONS,
  DESCRIBE_OPTIONS,
  DIFF_COMMAND_OPTIONS,
  DIFF_TREE_OPTIONS,
  FOR_EACH_REF_OPTIONS,
  GREP_OPTIONS,
  LOG_OPTIONS,
  LS_FILES_OPTIONS,
  LS_TREE_OPTIONS,
  MERGE_BASE_OPTIONS,
  MUTATIONS,
  NAME_REV_OPTIONS,
  NOTES_OPTIONS,
  NOTES_VERB_OPTIONS,
  RANGE_DIFF_OPTIONS,
  REMOTE_GET_URL_OPTIONS,
  REMOTE_OPTIONS,
  REMOTE_SHOW_OPTIONS,
  SHORTLOG_OPTIONS,
  SHOW_BRANCH_OPTIONS,
  SHOW_REF_OPTIONS,
  STASH_SHOW_OPTIONS,
  STATUS_OPTIONS,
  SUBMODULE_STATUS_OPTIONS,
  SYMBOLIC_REF_OPTIONS,
  TAG_OPTIONS,
  VAR_NAMES,
  VERIFIES_SIGNATURES,
  WORKTREE_LIST_OPTIONS,
} from "./git-tables.js";
import { configKeyRule, harmlessConfig, lowerKey, namesFormatAlias, READ_TRIGGERS, settingDisabled, type Trigger } from "./config-keys.js";

export type Verdict = "allow" | "ask" | "deny";

/**
 * `git`: a git invocation the classifier read. `shell`: a shell builtin it understands fully (`cd` into this
 * repository). `indirect`: something that may run git where the classifier cannot see how (`xargs git`, `sh -c`,
 * `$GIT log`). `other`: a command that is not git, outside its scope.
 */
export type InvocationKind = "git" | "shell" | "indirect" | "other";

export interface Invocation {
  kind: InvocationKind;
  /** The words of the command as the program receives them (an expanded word is shown as written). */
  argv: string[];
  /** The git subcommand (`status`, `stash list`...), or `null` for a non-git command or none. */
  subcommand: string | null;
  verdict: Verdict;
  /** Why: for `allow`, why it is safe; for `ask`/`deny`, each names the word or setting that made it so. */
  reasons: string[];
  /** True for a git read command: its `allow` holds only if the repository has nothing that read can fire. */
  read: boolean;
  /** For a read: what it can make git run or read besides the repository's objects (see `Trigger`). */
  triggers: Trigger[];
  /** The command as written in the command line. */
  source: string;
}

export interface Classification {
  /** Never `allow` when the line runs anything but git (and `cd` into this repository). */
  verdict: Verdict;
  reasons: string[];
  invocations: Invocation[];
  /** The strictest verdict of the git invocations alone (`null`: the line runs no git), for callers with rules of their own. */
  gitVerdict: Verdict | null;
}

/** A setting of the repository's config that names a program or a file, found by the repository check. */
export interface ExecutableSetting {
  /** As git lists it: section and name lower-cased, a subsection as written (`filter.Evil.clean`). */
  key: string;
  /** The value as git reads it; `null` for a key without `=` (boolean true). */
  value: string | null;
  /** Where it was set: `local`, `worktree`, `submodule <path>`, or `global`/`system` for a driver the repository selects. */
  scope: string;
  what: string;
  /**
   * For a path-valued key (`blame.ignoreRevsFile`, `core.excludesFile`, `core.worktree`, `mailmap.file`...): true
   * when the path, resolved as git resolves it and through symlinks, is inside the repository's work tree or git
   * directory. Absent: taken as outside.
   */
  inside?: boolean;
}

/**
 * What the repository check found out: the input that makes `allow` depend on the repository. Fields marked
 * "absent: unknown" make every read that the missing fact could matter to `ask` (fail closed).
 */
export interface RepositoryFacts {
  /** The directory that was checked (real path). */
  root: string;
  /** The top of the work tree (real path): `cd` and `git -C` to it stay in this repository. */
  topLevel?: string;
  /**
   * Every setting, after includes, that names a program or a file (`configKeyRule` knows it) and that
   * `settingDisabled(key, value, "repository")` does not call disabled: from the repository's own config
   * (local, worktree), from each checked-out submodule's (scope `submodule <path>`), and filter/diff drivers of
   * the user's global or system config that the repository's attributes select (scope `global`/`system`).
   */
  executableSettings: ExecutableSetting[];
  /**
   * Names of the executable hooks git would run for this repository: the files of the effective hooks directory
   * (`core.hooksPath`, else `<commonDir>/hooks`) that are executable, and hook.<name>.command events (2.54+).
   * Absent: unknown (reads that write the index, whose post-index-change hook would run, ask).
   */
  hooks?: string[];
  /**
   * The executable hooks of each checked-out submodule (by its path, nested ones as `lib/nested`), found as
   * `hooks` is in the submodule's own hooks directory: a read that recurses into a submodule runs git there,
   * which writes the submodule's index and runs its post-index-change hook. Absent: unknown (reads that recurse
   * into submodules ask).
   */
  submoduleHooks?: Record<string, string[]>;
  /** Whether the repository (or a submodule) is a partial clone: a read of a missing object fetches. Absent: unknown. */
  partialClone?: boolean;
  /** Layout problems: a work tree or git directory outside the checked directory, a `.git` file that points elsewhere... */
  layoutProblems?: string[];
  /** State files that are symlinks or point outside (HEAD, MERGE_MSG, rebase-merge/*, sequencer/*...): reads `ask`. */
  stateProblems?: string[];
  /** Checked-out submodules whose config could not be read: reads that recurse into submodules `ask`. */
  unscannedSubmodules?: string[];
  /**
   * Whether the user's global or system config rewrites URLs (url.<base>.insteadOf, pushInsteadOf): the remote
   * URLs git prints are then partly the user's config, where a token often is. Absent: unknown (`git remote -v`
   * and `get-url` ask).
   */
  userUrlRewrites?: boolean;
  /** Set when the repository could not be inspected at all (not a repository, another owner...): reads `ask`. */
  problem?: string;
}

export interface ClassifyOptions {
  /**
   * Kept for compatibility: commands other than git no longer add reasons of their own, but a line that has one
   * is still never `allow` (its git part's verdict is in `gitVerdict`).
   */
  ignoreNonGit?: boolean;
  /** The repository check's findings; without them, `allow` says nothing about the repository's config. */
  repository?: RepositoryFacts;
  /**
   * The absolute directory the line runs in. With it (and `repository.topLevel`), `cd <this repository>` and
   * `git -C <this repository>` are understood instead of asked about.
   */
  cwd?: string;
}

const STRICTNESS: Record<Verdict, number> = { allow: 0, ask: 1, deny: 2 };

export function stricter(a: Verdict, b: Verdict): Verdict {
  return STRICTNESS[a] >= STRICTNESS[b] ? a : b;
}

export { mayRunGit } from "./may-run-git.js";

/** Classifies a shell command line. Pure and synchronous; never throws for any input string. */
export function classifyCommand(commandLine: string, options: ClassifyOptions = {}): Classification {
  const parsed = parseShell(commandLine);
  if (!parsed.ok) {
    return { verdict: "ask", reasons: [`the command line could not be parsed as shell: ${parsed.error}`], invocations: [], gitVerdict: null };
  }
  const context: LineContext = { cwd: options.cwd, facts: options.repository };
  const invocations = parsed.commands.map((command) => classifyShellCommand(command, context));
  const gitSeen = invocations.some((inv) => inv.kind === "git" || inv.kind === "indirect");

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

  // `cd` into this repository is understood; any other change of the shell's state may change what git does.
  const understoodCd = new Set(invocations.filter((inv) => inv.kind === "shell").map((inv) => inv.source));
  const stateChanges = parsed.stateChanges.filter((s) => !(s.kind === "cd" && understoodCd.has(s.source)));
  if (gitSeen && stateChanges.length > 0) {
    const kinds = [...new Set(stateChanges.map((s) => s.kind))].join(", ");
    for (const inv of invocations) {
      if (inv.kind === "other") continue;
      escalate(inv, "ask", `the command line changes the shell's state (${kinds}), so git may not run as written or where expected`);
    }
  }

  // Arithmetic, subscripts, control characters: bash may run what no command names, or read the line otherwise.
  for (const hazard of parsed.hazards) {
    const reason = `${hazard.kind} in ${shorten(hazard.source)}: bash may run commands hidden in it, or read the line differently from this parser`;
    for (const inv of invocations) escalate(inv, "ask", reason);
  }

  for (const inv of invocations) {
    if (inv.read && inv.verdict === "allow" && options.repository !== undefined) applyRepositoryFacts(inv, options.repository);
  }

  const nonGit = invocations.filter((inv) => inv.kind === "other");
  const understood = invocations.filter((inv) => inv.kind !== "other");
  let gitVerdict: Verdict | null = null;
  for (const inv of understood) gitVerdict = stricter(gitVerdict ?? "allow", inv.verdict);
  let verdict: Verdict = gitVerdict ?? "allow";
  for (const inv of nonGit) verdict = stricter(verdict, inv.verdict);
  for (const _hazard of parsed.hazards) verdict = stricter(verdict, "ask");
  const reasons: string[] = [];
  for (const inv of understood) {
    if (inv.verdict === "allow") continue;
    for (const reason of inv.reasons) reasons.push(`${shorten(inv.source)}: ${reason}`);
  }
  if (options.ignoreNonGit === true) {
    if (nonGit.length > 0) {
      reasons.push(
        `not git, left to your own rules (a line with them is never allowed): ${nonGit.map((inv) => `\`${inv.argv[0] ?? shorten(inv.source)}\``).join(", ")}`,
      );
    }
  } else {
    for (const inv of nonGit) for (const reason of inv.reasons) reasons.push(`${shorten(inv.source)}: ${reason}`);
  }
  if (invocations.length === 0 && parsed.hazards.length > 0) {
    for (const hazard of parsed.hazards) reasons.push(`${hazard.kind} in ${shorten(hazard.source)}: bash may run commands hidden in it`);
  }
  if (invocations.length === 0 && reasons.length === 0) reasons.push("the command line runs nothing");
  const visible = invocations.map(
    ({ kind, argv, subcommand, verdict: v, reasons: r, read, triggers, source }): Invocation => ({
      kind,
      argv,
      subcommand,
      verdict: v,
      reasons: r,
      read,
      triggers,
      source,
    }),
  );
  return { verdict, reasons, invocations: visible, gitVerdict };
}

interface LineContext {
  cwd: string | undefined;
  facts: RepositoryFacts | undefined;
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
// The repository's side.

const TRIGGER_WORDS: Partial<Record<Trigger, string>> = {
  index: "reads the index",
  "index-write": "writes the index back",
  "work-tree-content": "compares work tree files with the index",
  textconv: "shows patches",
  "external-diff": "shows a diff",
  pager: "pages its output on a terminal",
  "log-output": "shows commits",
  signature: "verifies signatures",
  "alternate-refs": "lists the refs of alternates",
  blame: "blames",
  mailmap: "maps author names",
  excludes: "reads ignore patterns",
  attributes: "reads attributes",
  "order-file": "orders patches",
  objects: "reads objects",
  submodules: "recurses into submodules",
  "work-tree": "reads the work tree",
  "config-print": "prints config",
  config: "reads its config",
  remerge: "re-merges merge commits to show them",
};

/** A switch of the line that turns a program or file of the config off for the command it is given to. */
type Switch = "pager" | "textconv" | "show-signature" | "mailmap" | "ext-diff" | "ignore-revs-file";

/**
 * What each switch turns off (`--no-pager` and `GIT_PAGER=cat`, `--no-textconv`, `--no-show-signature`,
 * `--no-mailmap`, `--no-ext-diff`, `--no-ignore-revs-file`): the config keys whose program or file git then
 * ignores, and no other. A switch names keys, never a trigger: several keys fire one trigger, and a switch turns
 * off only its own. `--no-show-signature` turns off log.showSignature, while a format.pretty or pretty.<name>
 * with %G? still makes the same log output verify signatures with gpg.program.
 */
const SWITCHED_OFF_KEYS: Record<Switch, RegExp> = {
  pager: /^(core\.pager|pager\..+)$/,
  textconv: /^diff\..+\.textconv$/,
  "show-signature": /^log\.showsignature$/,
  mailmap: /^mailmap\.file$/,
  "ext-diff": /^(diff\.external|diff\..+\.command)$/,
  "ignore-revs-file": /^blame\.ignorerevsfile$/,
};

function switchedOffKey(switchedOff: ReadonlySet<Switch>, key: string): boolean {
  for (const s of switchedOff) if (SWITCHED_OFF_KEYS[s].test(key)) return true;
  return false;
}

function applyRepositoryFacts(inv: ClassifiedInvocation, facts: RepositoryFacts): void {
  const command = `git ${inv.subcommand ?? ""}`.trim();
  // Every git command reads its config, and with it every file the config includes.
  const triggers = new Set<Trigger>([...inv.triggers, "config"]);
  // submodule.recurse makes every command that can recurse into submodules do so.
  if (facts.executableSettings.some((s) => lowerKey(s.key) === "submodule.recurse" && !settingDisabled("submodule.recurse", s.value, "repository"))) {
    triggers.add("submodules");
  }
  if (facts.problem !== undefined) {
    escalate(inv, "ask", `the repository at ${facts.root} could not be checked: ${facts.problem}`);
    return;
  }
  for (const problem of facts.layoutProblems ?? []) escalate(inv, "ask", `the repository's layout: ${problem}`);
  for (const problem of facts.stateProblems ?? []) escalate(inv, "ask", `the repository's state files: ${problem}`);
  if (triggers.has("submodules")) {
    for (const path of facts.unscannedSubmodules ?? [])
      escalate(inv, "ask", `\`${command}\` recurses into the submodule ${path}, whose config could not be checked`);
  }
  if (triggers.has("objects") && facts.partialClone !== false) {
    escalate(
      inv,
      "ask",
      facts.partialClone === true
        ? `the repository is a partial clone: \`${command}\` may fetch missing objects, running the transport (ssh, credential helpers)`
        : `the repository check did not say whether this is a partial clone, where \`${command}\` may fetch missing objects`,
    );
  }
  if (triggers.has("remote-urls") && facts.userUrlRewrites !== false) {
    escalate(
      inv,
      "ask",
      facts.userUrlRewrites === true
        ? `\`${command}\` prints remote URLs rewritten by the user's url.*.insteadOf rules (global config), which may carry a credential`
        : `the repository check did not say whether the user's config rewrites URLs: \`${command}\` would print what it rewrites them to`,
    );
  }
  if (triggers.has("index-write")) {
    if (facts.hooks === undefined) {
      escalate(
        inv,
        "ask",
        `the repository check did not list the repository's hooks: \`${command}\` writes the index, which runs a post-index-change hook`,
      );
    } else if (facts.hooks.includes("post-index-change")) {
      escalate(inv, "ask", `\`${command}\` writes the index, which runs the repository's post-index-change hook`);
    }
  }
  if (triggers.has("submodules")) {
    if (facts.submoduleHooks === undefined) {
      escalate(
        inv,
        "ask",
        `the repository check did not list the hooks of its submodules: \`${command}\` recurses into submodules, where git writes the index and runs a post-index-change hook`,
      );
    } else {
      for (const [path, names] of Object.entries(facts.submoduleHooks)) {
        if (names.includes("post-index-change"))
          escalate(inv, "ask", `\`${command}\` recurses into the submodule ${path}, where git writes its index and runs its post-index-change hook`);
      }
    }
  }
  const fired = new Map<string, string>();
  for (const setting of facts.executableSettings) {
    const key = lowerKey(setting.key);
    const rule = configKeyRule(key);
    if (rule === undefined || settingDisabled(key, setting.value, "repository")) continue;
    if (setting.inside === true && rule.kind === "path" && key !== "core.hookspath") continue;
    const inSubmodule = setting.scope.startsWith("submodule");
    if (inSubmodule && !triggers.has("submodules")) continue;
    // A `-c` reaches the commands git runs in submodules (through GIT_CONFIG_PARAMETERS); the line's options do
    // not: the `git diff` run inside a submodule for --submodule=diff gets no --no-ext-diff or --no-textconv.
    if (inv.neutralised.has(key)) continue;
    if (!inSubmodule && switchedOffKey(inv.switchedOff, key)) continue;
    for (const trigger of rule.fires) {
      // In a submodule git runs a command of its own (status, or diff for `--submodule=diff`), which reads
      // more than the command given: whatever a read can fire there counts.
      if (!(inSubmodule ? READ_TRIGGERS.includes(trigger) : triggers.has(trigger))) continue;
      if (trigger === "pager" && /^pager\./.test(key) && key !== `pager.${inv.pagerName}`) continue;
      if (!fired.has(key))
        fired.set(key, inSubmodule ? `recurses into the ${setting.scope}, where git runs a command of its own` : (TRIGGER_WORDS[trigger] ?? trigger));
    }
  }
  for (const [key, why] of fired) {
    // A driver of the user's own config counts where the repository's attributes select it.
    const scope = facts.executableSettings.find((s) => lowerKey(s.key) === key)?.scope;
    const whose =
      scope === "global" || scope === "system"
        ? `the ${key} of your ${scope} config, which the repository's attributes select,`
        : `the repository's ${key}`;
    escalate(inv, "ask", `\`${command}\` ${why}, and ${whose} then ${configKeyRule(key)?.what ?? "names a program"}`);
  }
  if (inv.verdict === "allow") inv.reasons = [`${inv.reasons[0] ?? command}; the repository has nothing it can make run or read outside`];
}

// ---------------------------------------------------------------------------------------------------------
// One simple command.

const STANDARD_GIT_PATHS = new Set(["/usr/bin/git", "/usr/local/bin/git", "/bin/git", "/opt/homebrew/bin/git", "/usr/local/git/bin/git"]);

/** Commands that run other commands from their arguments or their input. */
const RUNNERS = new Set([
  "xargs",
  "sh",
  "bash",
  "zsh",
  "dash",
  "ksh",
  "mksh",
  "fish",
  "csh",
  "tcsh",
  "busybox",
  "env",
  "sudo",
  "doas",
  "su",
  "runuser",
  "nohup",
  "nice",
  "ionice",
  "timeout",
  "command",
  "builtin",
  "exec",
  "eval",
  "source",
  ".",
  "watch",
  "strace",
  "ltrace",
  "stdbuf",
  "unbuffer",
  "script",
  "flock",
  "chroot",
  "parallel",
  "find",
  "fd",
  "entr",
  "setsid",
  "chronic",
  "ssh",
  "python",
  "python3",
  "perl",
  "ruby",
  "node",
  "deno",
  "bun",
  "php",
  "lua",
  "awk",
  "gawk",
  "tclsh",
  "make",
  "npx",
  "time",
  "trap",
  "coproc",
  "tmux",
  "screen",
  "xterm",
  "fc",
]);

function isRunner(name: string | undefined): boolean {
  if (name === undefined) return false;
  return RUNNERS.has(name.split("/").pop() ?? name);
}

const GIT_WORD = /(^|[\s/;&|'"`(=])git([\s;&|'"`)]|-[a-z]|$)/;

function display(word: ShellWord): string {
  return word.value ?? word.source;
}

interface ClassifiedInvocation extends Invocation {
  /** Config keys the line itself set to a disabling value (`-c core.fsmonitor=false`): the repository's do not fire. */
  neutralised: Set<string>;
  /** What the line's switches turn off (`--no-pager`, `GIT_PAGER=cat`, `--no-textconv`...): see `SWITCHED_OFF_KEYS`. */
  switchedOff: Set<Switch>;
  /** The name `pager.<name>` would use for this command. */
  pagerName: string;
}

function classifyShellCommand(command: ShellCommand, context: LineContext): ClassifiedInvocation {
  const argv = command.words.map(display);
  const make = (kind: InvocationKind, subcommand: string | null, verdict: Verdict, reasons: string[]): ClassifiedInvocation => ({
    kind,
    argv,
    subcommand,
    verdict,
    reasons,
    read: false,
    triggers: [],
    source: command.source,
    neutralised: new Set(),
    switchedOff: new Set(),
    pagerName: "",
  });
  const name = command.words[0];
  if (name === undefined) return make("other", null, "ask", [describeNonGit(command)]);
  if (name.value === undefined) {
    return make("indirect", null, "ask", [
      `the command name ${name.source} is expanded by the shell (${name.dynamic.join(", ")}): it may run git, and what it runs cannot be known`,
    ]);
  }
  const program = name.value;
  const baseName = program.split("/").pop() ?? program;
  if (program === "git" || STANDARD_GIT_PATHS.has(program)) {
    const inv = classifyGitCommand(command, context);
    for (const ctx of command.context) {
      if (ctx === "background job") continue;
      escalate(inv, "ask", `runs inside a ${ctx}, where its effect on the rest of the command line cannot be judged`);
    }
    return { ...inv, argv, source: command.source };
  }
  if (baseName === "git" || baseName.startsWith("git-")) {
    return make("indirect", null, "ask", [`runs ${program}, not the git on PATH: a program of that name may be anything`]);
  }
  if (isRunner(program) && command.words.slice(1).some((w) => GIT_WORD.test(w.value ?? w.source))) {
    return make("indirect", null, "ask", [`runs git through \`${baseName}\`: the git call inside cannot be classified`]);
  }
  if (program === "cd" && command.context.length === 0 && command.assignments.length === 0 && command.redirects.length === 0) {
    const target = command.words[1];
    if (command.words.length === 2 && target?.value !== undefined && isThisRepository(target.value, context)) {
      return make("shell", null, "allow", [`\`cd ${target.value}\` stays in this repository's directory`]);
    }
  }
  return make("other", null, "ask", [describeNonGit(command)]);
}

function describeNonGit(command: ShellCommand): string {
  const name = command.words[0]?.value;
  if (name === undefined) return "a shell construct that is not a git command: outside the classifier's scope";
  return `\`${name}\` is not a git command: outside the classifier's scope`;
}

/**
 * Whether a directory named on the command line (`cd X`, `git -C X`) is this repository's: `.` (and, for `-C`,
 * the empty string git ignores), or exactly the directory the line runs in, the checked directory or the work
 * tree's top. Only literal absolute paths count: a relative one may lead into a nested repository, and `..` or a
 * symlink may lead out.
 */
function isThisRepository(dir: string, context: LineContext): boolean {
  if (dir === "." || dir === "./") return true;
  if (!dir.startsWith("/")) return false;
  const clean = (path: string): string => (path.length > 1 ? path.replace(/\/+$/, "") : path);
  const target = clean(dir);
  if (/(^|\/)\.\.?(\/|$)/.test(target) || target.includes("//")) return false;
  const known = [context.cwd, context.facts?.root, context.facts?.topLevel].filter((p): p is string => p !== undefined).map(clean);
  return known.includes(target);
}

// ---------------------------------------------------------------------------------------------------------
// A git invocation: environment, redirections, global options, subcommand.

class Findings {
  verdict: Verdict = "allow";
  readonly reasons: string[] = [];
  add(verdict: Verdict, reason: string): void {
    this.verdict = stricter(this.verdict, verdict);
    if (!this.reasons.includes(reason)) this.reasons.push(reason);
  }
}

function tokenOf(word: ShellWord): ArgToken {
  return { value: word.value, kind: word.kind, prefix: word.prefix, source: word.source };
}

function classifyGitCommand(command: ShellCommand, context: LineContext): ClassifiedInvocation {
  const findings = new Findings();
  const switchedOff = new Set<Switch>();
  for (const assignment of command.assignments) checkEnvironment(assignment.name, assignment.value, findings, switchedOff);
  for (const redirect of command.redirects) checkRedirect(redirect, findings);
  const result = classifyGitTokens(command.words.slice(1).map(tokenOf), context);
  for (const t of result.switchedOff) switchedOff.add(t);
  if (result.stdin !== undefined && command.stdin === "caller") {
    findings.add(
      "ask",
      `\`git ${result.subcommand ?? ""}\` ${result.stdin}, and the line gives it none: it would wait on the caller's input, which may never end`,
    );
  }
  const verdict = stricter(findings.verdict, result.verdict);
  const reasons = [...findings.reasons];
  for (const reason of result.reasons) if (!reasons.includes(reason)) reasons.push(reason);
  if (verdict === "allow" && reasons.length === 0) reasons.push(result.summary);
  return {
    kind: "git",
    argv: [],
    subcommand: result.subcommand,
    verdict,
    reasons,
    read: result.read,
    triggers: result.triggers,
    source: command.source,
    neutralised: result.neutralised,
    switchedOff,
    pagerName: result.pagerName,
  };
}

/** Environment variables that only change messages, terminal handling or pathspec magic, whatever their value. */
const HARMLESS_ENVIRONMENT =
  /^(NO_COLOR|GIT_TERMINAL_PROMPT|GIT_OPTIONAL_LOCKS|GIT_FLUSH|GIT_LITERAL_PATHSPECS|GIT_GLOB_PATHSPECS|GIT_NOGLOB_PATHSPECS|GIT_ICASE_PATHSPECS|GIT_NO_REPLACE_OBJECTS|GIT_ADVICE|GIT_NO_LAZY_FETCH|GIT_TRACE_REDACT)$/;

/**
 * Variables harmless only with a plain value: a locale or terminal name with a `/` is a path glibc or ncurses
 * reads files from (`LC_ALL=/tmp/x` loads a locale from there), and `TZ=/path` or `TZ=:/path` reads that file.
 */
const NAMED_ENVIRONMENT: Array<[RegExp, RegExp]> = [
  [/^(LANG|LANGUAGE|LC_[A-Z]+)$/, /^[A-Za-z0-9_.@:-]*$/],
  [/^TERM$/, /^[A-Za-z0-9_.+-]*$/],
  [/^(COLUMNS|LINES)$/, /^[0-9]*$/],
  [/^TZ$/, /^(?!:?\/)(?!.*\.\.)[A-Za-z0-9_+,.:/-]*$/],
];

/** Editors: `true` and `:` run nothing (git's editor code skips `:`), so a mutation that opens one still only asks. */
const EDITOR_ENVIRONMENT = /^(GIT_EDITOR|EDITOR|VISUAL|GIT_SEQUENCE_EDITOR)$/;

/**
 * GIT_TRACE and friends (trace.c `get_trace_fd`): empty, 0 and false are off, 1, 2 and true write to stderr; a
 * digit 3-9 writes to that descriptor and an absolute path opens (creates) that file. GIT_TRACE2* (trace2/tr2_dst.c)
 * also take a directory or an af_unix: socket.
 */
const TRACE_ENVIRONMENT = /^GIT_TRACE(\d|_[A-Z0-9_]+)?$|^GIT_TRACE2(_[A-Z0-9_]+)?$/;

/** Environment variables that make git run a program, or read or write a file, of the caller's choosing. */
const DANGEROUS_ENVIRONMENT =
  /^(GIT_EXTERNAL_DIFF|GIT_PAGER|PAGER|GIT_SSH|GIT_SSH_COMMAND|GIT_ASKPASS|SSH_ASKPASS|GIT_PROXY_COMMAND|GIT_EXEC_PATH|GIT_CONFIG_PARAMETERS|GIT_CONFIG_COUNT|GIT_CONFIG_KEY_\d+|GIT_CONFIG_VALUE_\d+|GIT_CONFIG|GIT_CONFIG_GLOBAL|GIT_CONFIG_SYSTEM|GIT_TEMPLATE_DIR|GIT_ATTR_SOURCE|GIT_NOTES_DISPLAY_REF|LD_\w+|DYLD_\w+|PATH|BASH_ENV|ENV|HOME|XDG_CONFIG_HOME|LESSOPEN|LESSCLOSE|LESSKEY|LESS|GIT_ALLOW_PROTOCOL|GIT_PROTOCOL_FROM_USER|GNUPGHOME|SSH_AUTH_SOCK)$/;

function checkEnvironment(name: string, value: ShellWord | undefined, findings: Findings, switchedOff: Set<Switch>): void {
  const literal = value === undefined ? "" : value.value;
  if (HARMLESS_ENVIRONMENT.test(name)) return;
  for (const [names, values] of NAMED_ENVIRONMENT) {
    if (!names.test(name)) continue;
    if (literal !== undefined && values.test(literal)) return;
    findings.add("ask", `sets ${name}=${literal ?? value?.source ?? ""}: a value that is a path makes git's libraries read files from it`);
    return;
  }
  if ((name === "GIT_PAGER" || name === "PAGER") && (literal === "cat" || literal === "")) {
    // GIT_PAGER is read before core.pager and pager.<cmd> (pager.c `git_pager`): `cat` or empty means no pager.
    if (name === "GIT_PAGER") switchedOff.add("pager");
    return;
  }
  if (EDITOR_ENVIRONMENT.test(name)) {
    if (literal === "true" || literal === ":") return;
    findings.add("deny", `sets ${name}=${literal ?? value?.source ?? ""}, an editor program of the caller's choosing`);
    return;
  }
  if (TRACE_ENVIRONMENT.test(name)) {
    if (literal !== undefined && /^(|0|1|2|true|false)$/i.test(literal)) return;
    findings.add("deny", `sets ${name}=${literal ?? value?.source ?? ""}: git writes its trace to that file, descriptor or socket`);
    return;
  }
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
    if (target !== "/dev/null")
      findings.add("ask", `the shell feeds ${target ?? redirect.target.source} to git's input, and git may print what it reads`);
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
  triggers: Trigger[];
  /** A one-line description for an `allow` without findings. */
  summary: string;
  /** Why it reads standard input, when it does (see `SubVerdict.stdin`). */
  stdin?: string;
  neutralised: Set<string>;
  switchedOff: Set<Switch>;
  pagerName: string;
}

export interface GlobalOption {
  tokens: string[];
  /** Whether a hardened rewrite may keep it (pathspec and namespace options); the rest it drops or refuses. */
  keep: boolean;
}

/**
 * Classifies git's arguments (the words after `git`), all literal. Exported for a hardened rewrite and tests;
 * callers with a shell command line use `classifyCommand`.
 */
export function classifyGitArgs(
  args: readonly string[],
): Omit<ArgsVerdict, "neutralised" | "switchedOff" | "pagerName"> & { globals: GlobalOption[]; rest: string[] } {
  const result = classifyGitTokens(args.map(literalToken), { cwd: undefined, facts: undefined });
  return { ...result, rest: result.rest.map((t) => t.value ?? t.source) };
}

function classifyGitTokens(args: readonly ArgToken[], context: LineContext): ArgsVerdict & { globals: GlobalOption[]; rest: ArgToken[] } {
  const findings = new Findings();
  const neutralised = new Set<string>();
  const switchedOff = new Set<Switch>();
  const { globals, index, info } = parseGlobals(args, findings, context, neutralised, switchedOff);
  const rest = args.slice(index);
  const base = { globals, neutralised, switchedOff, triggers: [] as Trigger[], pagerName: "" };
  if (info !== undefined) {
    return {
      ...base,
      subcommand: info,
      verdict: findings.verdict,
      reasons: findings.reasons,
      read: false,
      summary: `git ${info} prints information`,
      rest: [],
    };
  }
  const subToken = rest[0];
  if (subToken === undefined) {
    return {
      ...base,
      subcommand: null,
      verdict: findings.verdict,
      reasons: findings.reasons,
      read: false,
      summary: "git without a command prints its usage",
      rest,
    };
  }
  let outcome: SubVerdict;
  const sub = subToken.value;
  if (sub === undefined) {
    outcome = { subcommand: null, findings: [["ask", `the git subcommand ${subToken.source} is expanded by the shell`]], read: false, triggers: [] };
  } else {
    const handler = Object.hasOwn(READ_COMMANDS, sub) ? READ_COMMANDS[sub] : undefined;
    const subArgs = rest.slice(1);
    outcome = handler !== undefined ? handler(subArgs) : classifyOther(sub, subArgs);
    outcome.findings.push(...helpFindings(sub, subArgs));
  }
  for (const [verdict, reason] of outcome.findings) findings.add(verdict, reason);
  const subcommand = outcome.subcommand ?? sub ?? null;
  for (const t of outcome.switchedOff ?? []) switchedOff.add(t);
  const why = outcome.read ? readSummary(subcommand ?? "", outcome.triggers) : `git ${subcommand ?? ""} prints information`;
  return {
    ...base,
    subcommand,
    verdict: findings.verdict,
    reasons: findings.reasons,
    read: outcome.read,
    triggers: outcome.read ? outcome.triggers : [],
    summary: why,
    rest,
    pagerName: sub ?? "",
    ...(outcome.read && outcome.stdin !== undefined ? { stdin: outcome.stdin } : {}),
  };
}

function readSummary(subcommand: string, _triggers: Trigger[]): string {
  return `git ${subcommand} only reads the repository: every option and argument is known, and none names a file, a program or an option of the caller's choosing`;
}

/**
 * `--help` (and its abbreviations) runs `git help`, which starts man or the viewer man.viewer/help.format name;
 * `-h` alone prints usage. Both are asked about on every subcommand: what they run depends on config.
 */
function helpFindings(sub: string, args: readonly ArgToken[]): Finding[] {
  for (const token of args) {
    const v = token.value;
    if (v === undefined) continue;
    if (v === "--") break;
    if (/^--he?l?p?(-all)?$/.test(v) && v.length >= 4)
      return [["ask", `${v} runs git help, which starts man or the viewer man.viewer or help.format names`]];
    if (v === "-h" && !(sub === "grep" && args.length > 1) && !(sub === "ls-remote")) {
      return [["ask", "-h prints the usage, or runs git help for an alias"]];
    }
  }
  return [];
}

/** The global options before the subcommand (git.c `handle_options`: exact names, no abbreviations). */
function parseGlobals(
  args: readonly ArgToken[],
  findings: Findings,
  context: LineContext,
  neutralised: Set<string>,
  switchedOff: Set<Switch>,
): { globals: GlobalOption[]; index: number; info?: string } {
  const globals: GlobalOption[] = [];
  let i = 0;
  while (i < args.length) {
    const current = args[i]!;
    const token = current.value;
    if (token === undefined) {
      if (current.prefix.startsWith("-")) {
        i++;
        globals.push({ tokens: [current.source], keep: false });
        const deny = /^(-c|--config-env|--exec-path)/.test(current.prefix);
        findings.add(
          deny ? "deny" : "ask",
          `the global option ${current.source} is expanded by the shell: ${deny ? "it may set any config, a program included" : "what it does is not known"}`,
        );
        continue;
      }
      break;
    }
    if (!token.startsWith("-")) break;
    i++;
    const valueOf = (prefix: string): { value: ArgToken | undefined; tokens: string[] } => {
      if (token === prefix) {
        const value = args[i];
        if (value !== undefined) i++;
        return { value, tokens: value === undefined ? [token] : [token, value.value ?? value.source] };
      }
      return { value: literalToken(token.slice(prefix.length + 1)), tokens: [token] };
    };
    switch (true) {
      case token === "-p" || token === "--paginate":
        globals.push({ tokens: [token], keep: false });
        findings.add("ask", `${token} starts a pager (core.pager, $PAGER or less) on a terminal`);
        continue;
      case token === "-P" || token === "--no-pager":
        globals.push({ tokens: [token], keep: false });
        switchedOff.add("pager");
        continue;
      case ["--no-replace-objects", "--no-optional-locks", "--no-lazy-fetch", "--no-advice"].includes(token):
        globals.push({ tokens: [token], keep: false });
        continue;
      case ["--literal-pathspecs", "--glob-pathspecs", "--noglob-pathspecs", "--icase-pathspecs"].includes(token):
        globals.push({ tokens: [token], keep: true });
        continue;
      case token === "--namespace" || token.startsWith("--namespace="): {
        const { value, tokens } = valueOf("--namespace");
        globals.push({ tokens, keep: true });
        if (value?.value === undefined) findings.add("ask", `--namespace ${value?.source ?? ""} is expanded by the shell`);
        continue;
      }
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
        const dir = value?.value;
        // git ignores an empty -C (git.c: `if (*argv[1])`).
        if (dir === "" || (dir !== undefined && isThisRepository(dir, context))) continue;
        findings.add("ask", `runs in another directory (-C ${value?.source ?? ""}), whose repository and config are not checked`);
        continue;
      }
      case token === "-c": {
        const { value, tokens } = valueOf("-c");
        globals.push({ tokens, keep: false });
        checkConfigOverride(value, findings, "-c", neutralised);
        continue;
      }
      case token === "--config-env" || token.startsWith("--config-env="): {
        const { value, tokens } = valueOf("--config-env");
        globals.push({ tokens, keep: false });
        checkConfigEnv(value, findings);
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
        findings.add("ask", `git ${token} runs git help, which opens the manual with man or the viewer man.viewer or help.format names`);
        return { globals, index: i, info: "help" };
      default:
        globals.push({ tokens: [token], keep: false });
        findings.add("ask", `unknown global option ${token}`);
        continue;
    }
  }
  return { globals, index: i };
}

/**
 * `-c key=value` (config.c `git_config_push_parameter` splits at the first `=`; without one the key is boolean
 * true). A program or file of the caller's choosing is `deny`; a value git treats as off (`settingDisabled`) is
 * fine and neutralises the repository's setting of the same key; a switch that turns a program on asks.
 */
function checkConfigOverride(setting: ArgToken | undefined, findings: Findings, flag: string, neutralised: Set<string>): void {
  if (setting === undefined) return;
  const text = setting.value ?? setting.prefix;
  const eq = text.indexOf("=");
  if (setting.value === undefined && eq === -1) {
    findings.add("deny", `${flag} ${setting.source}: the setting is expanded by the shell, so it may set any key, a program included`);
    return;
  }
  const key = eq === -1 ? text : text.slice(0, eq);
  const value: string | null | undefined = setting.value === undefined ? undefined : eq === -1 ? null : text.slice(eq + 1);
  classifySetting(key, value, findings, flag, neutralised, setting.source);
}

/**
 * `--config-env=<key>=<ENVVAR>`: config.c `git_config_push_env` splits at the last `=` (`strrchr`), and the value
 * is the variable's, which the line does not show.
 */
function checkConfigEnv(spec: ArgToken | undefined, findings: Findings): void {
  if (spec === undefined) return;
  if (spec.value === undefined) {
    findings.add("deny", `--config-env ${spec.source}: the setting is expanded by the shell, so it may set any key, a program included`);
    return;
  }
  const eq = spec.value.lastIndexOf("=");
  const key = eq === -1 ? spec.value : spec.value.slice(0, eq);
  const rule = configKeyRule(key);
  if (rule !== undefined) {
    findings.add(
      "deny",
      `sets ${key} from the environment variable ${spec.value.slice(eq + 1)} (--config-env): ${rule.what}, and the value is not on the line`,
    );
  } else if (!harmlessConfig(key)) {
    findings.add("ask", `sets config ${key} for this command from the environment (--config-env)`);
  }
}

/** Keys git adds to rather than replaces, with no value that resets the list (config.c `handle_config`). */
const INCLUDE_KEY = /^include\.path$|^includeif\..+\.path$/;

/** `value`: `null` for a key without `=`, `undefined` when the shell expands it. */
function classifySetting(
  key: string,
  value: string | null | undefined,
  findings: Findings,
  flag: string,
  neutralised: Set<string>,
  source: string,
): void {
  const lower = lowerKey(key);
  const rule = configKeyRule(lower);
  if (rule === undefined) {
    if (harmlessConfig(lower)) return;
    findings.add("ask", `sets config ${key} for this command (${flag} ${source})`);
    return;
  }
  if (value === undefined) {
    findings.add("deny", `${flag} ${source}: ${key} ${rule.what}, and its value is expanded by the shell`);
    return;
  }
  if (settingDisabled(lower, value, "command-line")) {
    // A `-c` replaces the repository's value of most keys, but every include.path and includeIf.*.path is
    // followed, the command line's as well as the repository's: `-c include.path=/dev/null` adds one more file.
    if (!INCLUDE_KEY.test(lower)) neutralised.add(lower);
    return;
  }
  if (lower === "core.fsmonitor" && (value === null || /^(true|yes|on|1)$/i.test(value))) {
    findings.add("ask", `${flag} ${source}: starts git's own fsmonitor daemon, a process that keeps running`);
    return;
  }
  if (/^pager\./.test(lower) && (value === null || /^(true|yes|on|1)$/i.test(value))) {
    findings.add("ask", `${flag} ${source}: turns paging on for git ${lower.slice(6)} (your pager runs on a terminal)`);
    return;
  }
  if (/^alias\./.test(lower) && !(value ?? "").trimStart().startsWith("!")) {
    findings.add("ask", `defines the alias ${key.slice(6)} for this command (${flag})`);
    return;
  }
  if (rule.kind === "switch") {
    findings.add("ask", `${flag} ${source}: ${rule.what}`);
    return;
  }
  findings.add("deny", `sets ${key}${value === null ? "" : `=${value}`} (${flag}): ${rule.what}`);
}

// ---------------------------------------------------------------------------------------------------------
// Subcommands.

type Finding = [Verdict, string];

interface SubVerdict {
  /** A refined name such as `stash list`; `null` keeps the word as given. */
  subcommand: string | null;
  findings: Finding[];
  read: boolean;
  /** What the read can fire (see `Trigger`). */
  triggers: Trigger[];
  /** What its own switches turn off (see `SWITCHED_OFF_KEYS`). */
  switchedOff?: Switch[];
  /** Why it reads standard input, when it does: a line that does not give it any may wait forever. */
  stdin?: string;
}

/** How a read command takes expanded words (`"$X"`) besides plain option values. */
interface ExpandedPolicy {
  /** A quoted parameter after literal text that is not a dash (`HEAD~"$N"`, `"refs/$R"`): git reads a positional. */
  positionals: boolean;
  /** A quoted parameter after the real end of options (`-- "$FILE"`): a pathspec. */
  paths: boolean;
  /** Why not, when not: the reason given. */
  why?: string;
}

const EXPANDED_OK: ExpandedPolicy = { positionals: true, paths: true };

/**
 * Findings common to every parsed argument list: denied options, options this model does not know, and every
 * word the shell expands, by the role git gives it.
 */
function optionFindings(parsed: ParsedArgs, policy: ExpandedPolicy = EXPANDED_OK): Finding[] {
  const out: Finding[] = [];
  for (const d of parsed.denied) out.push(["deny", d.reason === "" ? `${d.spelling} is not allowed` : `${d.reason}: ${d.spelling}`]);
  for (const u of parsed.unknown) out.push(["ask", `${u.token}: ${u.why}, so what git does with it is not known`]);
  for (const o of parsed.options) {
    if (o.def?.effect.kind === "ask") out.push(["ask", `${o.def.effect.reason}: ${o.spelling}`]);
  }
  for (const e of parsed.expanded) {
    const word = e.token.source;
    const expands = e.token.kind === "dynamic" ? "is expanded by the shell into any number of words" : "is expanded by the shell";
    if (e.token.kind === "dynamic") {
      if (e.denied !== undefined) out.push(["deny", `${e.denied}: ${word} may become that option`]);
      else if (e.role === "value" && e.option?.def?.effect.kind === "deny")
        out.push(["deny", `${e.option.def.effect.reason}, with a value the shell expands: ${word}`]);
      else out.push(["ask", `${word} ${expands}: git may read an option or a path outside the repository in it`]);
      continue;
    }
    switch (e.role) {
      case "value": {
        const def = e.option?.def;
        if (def?.effect.kind === "deny") out.push(["deny", `${def.effect.reason}, with a value the shell expands: ${word}`]);
        else if (def?.plainValue !== true)
          out.push([
            "ask",
            `${word} ${expands}, and ${e.option?.spelling.replace(/=.*/, "") ?? "its option"} takes a value that is not plain text (a file, a program, or a format that can run one)`,
          ]);
        break;
      }
      case "positional":
        if (!policy.positionals) out.push(["ask", `${word} ${expands}: ${policy.why ?? "a positional of this command must be known"}`]);
        break;
      case "path":
        if (!policy.paths) out.push(["ask", `${word} ${expands}: ${policy.why ?? "a path of this command must be known"}`]);
        break;
      case "option":
        if (e.denied !== undefined) out.push(["deny", `${e.denied}: ${word} may become that option`]);
        else out.push(["ask", `${word} ${expands}, where git reads options: ${e.why ?? "it may become one"}`]);
        break;
    }
  }
  return out;
}

interface ReadModel {
  table: OptionTable;
  /** Whether git accepts abbreviations (parse-options builtins) or not (the revision machinery). */
  abbreviations: boolean;
  /** See `ParseSettings.dashdash`. */
  dashdash: "first" | "parsed";
  triggers: (parsed: ParsedArgs) => Trigger[];
  policy?: ExpandedPolicy;
  extra?: (parsed: ParsedArgs) => Finding[];
  neutralisers?: (parsed: ParsedArgs) => Switch[];
  /** Why it reads standard input when it does besides the options of STDIN_OPTIONS (see `SubVerdict.stdin`). */
  stdin?: (parsed: ParsedArgs) => string | undefined;
}

/** Options of the revision machinery that name revisions themselves (revision.c `handle_revision_pseudo_opt`). */
const REVISION_OPTIONS = ["all", "branches", "tags", "remotes", "glob", "reflog", "alternate-refs", "bisect", "stdin"];

/** Options that make a read command take its input from standard input, in every table that has them. */
const STDIN_OPTIONS = new Set(["stdin", "annotate-stdin", "batch", "batch-check", "batch-command", "exclude-existing"]);

function stdinOption(parsed: ParsedArgs): string | undefined {
  const option = parsed.options.find((o) => o.negates === undefined && (o.def?.long.some((name) => STDIN_OPTIONS.has(name)) ?? false));
  if (option === undefined) return undefined;
  // `cat-file --batch-check --batch-all-objects` lists every object instead.
  if (option.name.startsWith("batch") && has(parsed, "batch-all-objects")) return undefined;
  return `reads its input from standard input (${option.spelling})`;
}

/** Whether an option is given, by any of its names (`-l` is `--list`); `--no-local` is not `--local`. */
function has(parsed: ParsedArgs, ...names: string[]): boolean {
  return parsed.options.some(
    (o) =>
      o.negates === undefined &&
      (names.includes(o.name) || (o.def?.long.some((l) => names.includes(l)) ?? false) || (o.def?.short.some((l) => names.includes(l)) ?? false)),
  );
}

/** Options that turn the log family's patch output on (and with it textconv, attributes, the order file). */
// `--binary` implies --patch (Documentation/diff-options: "Implies --patch"), found by running every option.
const PATCH_OPTIONS = [
  "p",
  "u",
  "patch",
  "U",
  "unified",
  "W",
  "function-context",
  "patch-with-raw",
  "patch-with-stat",
  "word-diff",
  "color-words",
  "S",
  "G",
  "cc",
  "c",
  "dd",
  "remerge-diff",
  "m",
  "diff-merges",
  "L",
  "binary",
];

/** Options that make the log family compute diffs of blobs at all (which reads the index, see `Trigger`). */
const DIFF_OUTPUT_OPTIONS = [
  ...PATCH_OPTIONS,
  "stat",
  "numstat",
  "shortstat",
  "dirstat",
  "X",
  "dirstat-by-file",
  "cumulative",
  "summary",
  "compact-summary",
  "name-only",
  "name-status",
  "raw",
  "check",
  "patch-with-raw",
  "cherry-pick",
  "cherry-mark",
  "cherry",
  "follow",
  "M",
  "find-renames",
  "C",
  "find-copies",
  "find-copies-harder",
  "B",
  "break-rewrites",
  "find-object",
  "diff-filter",
  "t",
  "r",
];

/** `--format=%G?` and friends (pretty.c `%G`), `%(signature)` atoms (ref-filter.c, since 2.48): gpg runs. */
function signatureFormat(parsed: ParsedArgs): Finding[] {
  for (const o of parsed.options) {
    if (!["format", "pretty"].includes(o.name) || o.value === undefined) continue;
    if (/%G|%\(signature/.test(o.value))
      return [["ask", `${VERIFIES_SIGNATURES}: ${o.spelling} ${o.value.includes("%G") ? "shows %G placeholders" : "shows signature atoms"}`]];
  }
  return [];
}

/**
 * The log family's `--format`/`--pretty` (pretty.c): besides %G placeholders, a name that is not one of git's
 * built-in formats is an alias, `pretty.<name>` of the repository's config (which the repository check reads) or
 * of the user's (which the line cannot show): `--format=sig` with the user's `pretty.sig = %G? %s` verifies the
 * signatures a clone brought with gpg, as `--format=%G?` does.
 */
function prettyFormat(parsed: ParsedArgs): Finding[] {
  const signatures = signatureFormat(parsed);
  if (signatures.length > 0) return signatures;
  for (const o of parsed.options) {
    if (["format", "pretty"].includes(o.name) && o.value !== undefined && namesFormatAlias(o.value))
      return [
        ["ask", `${o.spelling} names a format alias (pretty.${o.value}) of your config, which may show %G placeholders: ${VERIFIES_SIGNATURES}`],
      ];
  }
  return [];
}

function logNeutralisers(parsed: ParsedArgs): Switch[] {
  const out: Switch[] = [];
  if (parsed.options.some((o) => o.spelling === "--no-textconv")) out.push("textconv");
  if (parsed.options.some((o) => o.spelling === "--no-show-signature")) out.push("show-signature");
  if (parsed.options.some((o) => o.spelling === "--no-mailmap" || o.spelling === "--no-use-mailmap")) out.push("mailmap");
  return out;
}

/** A positional naming an index entry (`:path`, `:1:path`): the index is read. */
function indexPositional(parsed: ParsedArgs): boolean {
  return parsed.positionals.some((p) => p.startsWith(":") && !p.startsWith(":/"));
}

/**
 * What a patch of history can start besides the textconv of its files: a submodule's change shown as a diff
 * (`--submodule=diff`, or diff.submodule=diff in a config) is a `git diff` git runs inside the submodule, under
 * the submodule's own config; and a merge re-merged to show what it changed (`--remerge-diff`,
 * `--diff-merges=remerge`, or `-m` with log.diffMerges=remerge) runs the merge drivers the attributes select.
 */
function patchTriggers(parsed: ParsedArgs, patch: boolean): Trigger[] {
  const t: Trigger[] = [];
  if (patch || has(parsed, "submodule")) t.push("submodules");
  if (has(parsed, "remerge-diff", "diff-merges", "m")) t.push("remerge");
  return t;
}

function logTriggers(alwaysPatch: boolean, alwaysDiff = alwaysPatch): (parsed: ParsedArgs) => Trigger[] {
  return (parsed) => {
    const t: Trigger[] = ["objects", "pager", "log-output", "mailmap"];
    const patch = alwaysPatch || has(parsed, ...PATCH_OPTIONS);
    if (patch) t.push("textconv", "attributes", "order-file");
    t.push(...patchTriggers(parsed, patch));
    if (has(parsed, "alternate-refs")) t.push("alternate-refs");
    if (alwaysDiff || indexPositional(parsed) || has(parsed, ...DIFF_OUTPUT_OPTIONS)) t.push("index");
    return t;
  };
}

function readWith(model: ReadModel): (args: readonly ArgToken[]) => SubVerdict {
  return (args) => {
    const settings: ParseSettings = { abbreviations: model.abbreviations, dashdash: model.dashdash };
    const parsed = parseArgs(model.table, args, settings);
    const stdin = model.stdin?.(parsed) ?? stdinOption(parsed);
    return {
      subcommand: null,
      findings: [...optionFindings(parsed, model.policy), ...(model.extra?.(parsed) ?? [])],
      read: true,
      triggers: model.triggers(parsed),
      switchedOff: model.neutralisers?.(parsed) ?? [],
      ...(stdin !== undefined ? { stdin } : {}),
    };
  };
}

/**
 * `git diff a b` where a path lies outside the work tree is `git diff --no-index`: it reads any file. A
 * relative path that climbs (`..`) or an absolute one may be outside; the classifier cannot tell, so it denies.
 */
function implicitNoIndex(parsed: ParsedArgs): Finding[] {
  const outside = [...parsed.positionals, ...parsed.paths].filter((p) => p.startsWith("/") || p.split("/").includes("..") || p.startsWith("~"));
  return outside.length === 0
    ? []
    : [["deny", `compares files that may lie outside the repository (${outside.join(", ")}): git diff then acts as --no-index and reads any file`]];
}

/** Whether `git diff`'s arguments compare two trees (no work tree, no index refresh). */
function diffWorkTree(parsed: ParsedArgs): boolean {
  if (has(parsed, "cached", "staged")) return false;
  const revs = parsed.positionals;
  return !(revs.length >= 2 || revs.some((r) => r.includes("..")));
}

const NO_EXPANDED_DIFF: ExpandedPolicy = {
  positionals: false,
  paths: false,
  why: "git diff with two paths outside the repository compares them as files (--no-index), so its paths must be known",
};

const READ_COMMANDS: Record<string, (args: readonly ArgToken[]) => SubVerdict> = {
  // builtin/commit.c cmd_status (parse-options): reads and refreshes the index, runs filters on stat-dirty files,
  // runs git status in each checked-out submodule.
  status: readWith({
    table: STATUS_OPTIONS,
    abbreviations: true,
    dashdash: "parsed",
    triggers: () => ["index", "index-write", "work-tree-content", "excludes", "attributes", "submodules", "work-tree", "objects", "pager"],
  }),
  // builtin/diff.c (setup_revisions: the first `--` ends options). Textconv and external diff are on by default.
  diff: readWith({
    table: DIFF_COMMAND_OPTIONS,
    abbreviations: false,
    dashdash: "first",
    policy: NO_EXPANDED_DIFF,
    extra: implicitNoIndex,
    triggers: (parsed) => {
      const t: Trigger[] = ["objects", "pager", "textconv", "external-diff", "attributes", "order-file", "index", ...patchTriggers(parsed, true)];
      if (diffWorkTree(parsed)) t.push("index-write", "work-tree-content", "work-tree");
      return t;
    },
    neutralisers: (parsed) => [
      ...logNeutralisers(parsed),
      ...(parsed.options.some((o) => o.spelling === "--no-ext-diff") ? (["ext-diff"] as Switch[]) : []),
    ],
  }),
  // builtin/log.c: cmd_log_init sets allow_textconv; log.showSignature applies to log, show, whatchanged.
  log: readWith({
    table: LOG_OPTIONS,
    abbreviations: false,
    dashdash: "first",
    triggers: logTriggers(false),
    extra: prettyFormat,
    neutralisers: logNeutralisers,
  }),
  show: readWith({
    table: LOG_OPTIONS,
    abbreviations: false,
    dashdash: "first",
    triggers: logTriggers(true),
    extra: prettyFormat,
    neutralisers: logNeutralisers,
  }),
  whatchanged: readWith({
    table: LOG_OPTIONS,
    abbreviations: false,
    dashdash: "first",
    triggers: logTriggers(false, true),
    extra: prettyFormat,
    neutralisers: logNeutralisers,
  }),
  "rev-list": readWith({
    table: LOG_OPTIONS,
    abbreviations: false,
    dashdash: "first",
    extra: prettyFormat,
    triggers: (parsed) => [
      "objects",
      ...(has(parsed, "alternate-refs") ? (["alternate-refs"] as Trigger[]) : []),
      ...(indexPositional(parsed) || has(parsed, ...DIFF_OUTPUT_OPTIONS) ? (["index"] as Trigger[]) : []),
    ],
  }),
  // builtin/shortlog.c: parse-options first, revision options through parse_revision_opt.
  shortlog: readWith({
    table: SHORTLOG_OPTIONS,
    abbreviations: false,
    dashdash: "parsed",
    extra: prettyFormat,
    triggers: () => ["objects", "mailmap", "pager"],
    // builtin/shortlog.c: with no revision (no argument, no --all, --branches...), a log is read from standard
    // input unless that is a terminal.
    stdin: (parsed) =>
      parsed.positionalCount === 0 && !has(parsed, ...REVISION_OPTIONS)
        ? "summarises a log read from standard input when given no revision (unless that is a terminal)"
        : stdinOption(parsed),
  }),
  "diff-tree": readWith({
    table: DIFF_TREE_OPTIONS,
    abbreviations: false,
    dashdash: "first",
    triggers: (parsed) => ["objects", "attributes", "index", ...patchTriggers(parsed, true)],
  }),
  "diff-index": readWith({
    table: DIFF_TREE_OPTIONS,
    abbreviations: false,
    dashdash: "first",
    policy: NO_EXPANDED_DIFF,
    triggers: (parsed) => [
      "objects",
      "index",
      "attributes",
      ...(has(parsed, "cached") ? [] : (["work-tree", "work-tree-content"] as Trigger[])),
      ...patchTriggers(parsed, true),
    ],
  }),
  "diff-files": readWith({
    table: DIFF_TREE_OPTIONS,
    abbreviations: false,
    dashdash: "first",
    policy: NO_EXPANDED_DIFF,
    triggers: () => ["objects", "index", "attributes", "work-tree", "work-tree-content", "submodules"],
  }),
  // builtin/blame.c: parse-options with KEEP_DASHDASH; textconv on by default; the work tree file is cleaned.
  blame: readWith({
    table: BLAME_OPTIONS,
    abbreviations: true,
    dashdash: "parsed",
    triggers: () => ["objects", "index", "work-tree", "work-tree-content", "textconv", "blame", "mailmap", "attributes", "pager"],
    neutralisers: (parsed) => [
      ...(parsed.options.some((o) => o.spelling === "--no-textconv") ? (["textconv"] as Switch[]) : []),
      ...(parsed.options.some((o) => o.spelling === "--no-ignore-revs-file") ? (["ignore-revs-file"] as Switch[]) : []),
    ],
  }),
  annotate: readWith({
    table: BLAME_OPTIONS,
    abbreviations: true,
    dashdash: "parsed",
    triggers: () => ["objects", "index", "work-tree", "work-tree-content", "textconv", "blame", "mailmap", "attributes", "pager"],
  }),
  "merge-base": readWith({ table: MERGE_BASE_OPTIONS, abbreviations: true, dashdash: "parsed", triggers: () => ["objects"] }),
  describe: readWith({
    table: DESCRIBE_OPTIONS,
    abbreviations: true,
    dashdash: "parsed",
    triggers: (parsed) => [
      "objects",
      ...(has(parsed, "dirty", "broken")
        ? (["index", "index-write", "work-tree", "work-tree-content", "submodules", "attributes"] as Trigger[])
        : []),
    ],
  }),
  "ls-files": readWith({
    table: LS_FILES_OPTIONS,
    abbreviations: true,
    dashdash: "parsed",
    triggers: (parsed) => [
      "index",
      "excludes",
      "attributes",
      "work-tree",
      ...(has(parsed, "m", "modified") ? (["work-tree-content"] as Trigger[]) : []),
      ...(has(parsed, "recurse-submodules") ? (["submodules"] as Trigger[]) : []),
    ],
  }),
  "ls-tree": readWith({ table: LS_TREE_OPTIONS, abbreviations: true, dashdash: "parsed", triggers: () => ["objects"] }),
  "cat-file": readWith({
    table: CAT_FILE_OPTIONS,
    abbreviations: true,
    dashdash: "parsed",
    triggers: (parsed) => [
      "objects",
      ...(indexPositional(parsed) || has(parsed, "batch", "batch-check", "batch-command") ? (["index"] as Trigger[]) : []),
    ],
  }),
  grep: readWith({
    table: GREP_OPTIONS,
    abbreviations: true,
    dashdash: "parsed",
    triggers: (parsed) => [
      "objects",
      "index",
      "pager",
      "attributes",
      "work-tree",
      "excludes",
      ...(has(parsed, "recurse-submodules") ? (["submodules"] as Trigger[]) : []),
    ],
  }),
  "for-each-ref": readWith({
    table: FOR_EACH_REF_OPTIONS,
    abbreviations: true,
    dashdash: "parsed",
    extra: signatureFormat,
    triggers: () => ["objects"],
  }),
  "show-ref": readWith({ table: SHOW_REF_OPTIONS, abbreviations: true, dashdash: "parsed", triggers: () => [] }),
  "name-rev": readWith({ table: NAME_REV_OPTIONS, abbreviations: true, dashdash: "parsed", triggers: () => ["objects"] }),
  "check-ignore": readWith({
    table: CHECK_IGNORE_OPTIONS,
    abbreviations: true,
    dashdash: "parsed",
    triggers: () => ["index", "excludes", "work-tree"],
  }),
  "count-objects": readWith({ table: COUNT_OBJECTS_OPTIONS, abbreviations: true, dashdash: "parsed", triggers: () => [] }),
  cherry: readWith({ table: CHERRY_OPTIONS, abbreviations: true, dashdash: "parsed", triggers: () => ["objects", "attributes", "index"] }),
  "show-branch": readWith({ table: SHOW_BRANCH_OPTIONS, abbreviations: true, dashdash: "parsed", triggers: () => ["objects", "pager"] }),
  // builtin/range-diff.c runs `git log -p` on each range: textconv and log.showSignature apply there.
  "range-diff": readWith({
    table: RANGE_DIFF_OPTIONS,
    abbreviations: true,
    dashdash: "parsed",
    policy: { positionals: false, paths: false, why: "range-diff hands its ranges to a git log it runs, so they must be known" },
    extra: (parsed) =>
      [...parsed.positionals, ...parsed.paths]
        .filter((p) => p.startsWith("-"))
        .map((p): Finding => ["ask", `${p}: range-diff hands its ranges to git log, which would read it as an option`]),
    triggers: (parsed) => [
      "objects",
      "pager",
      "textconv",
      "log-output",
      "mailmap",
      "attributes",
      "order-file",
      "index",
      ...patchTriggers(parsed, true),
    ],
  }),
  "rev-parse": classifyRevParse,
  version: (args) => ({
    subcommand: null,
    findings: args
      .filter((a) => a.value === undefined || !["--build-options"].includes(a.value))
      .map((a): Finding => ["ask", `${a.source}: not an option of git version`]),
    read: false,
    triggers: [],
  }),
  help: () => ({
    subcommand: null,
    findings: [["ask", "git help opens the manual with man or the viewer man.viewer or help.format names"]],
    read: false,
    triggers: [],
  }),
  branch: classifyBranch,
  tag: classifyTag,
  reflog: classifyReflog,
  remote: classifyRemote,
  stash: classifyStash,
  worktree: classifyWorktree,
  config: classifyConfig,
  "symbolic-ref": classifySymbolicRef,
  notes: classifyNotes,
  var: classifyVar,
  submodule: classifySubmodule,
};

/** The read commands the classifier knows, for documentation and tests. */
export const READ_SUBCOMMANDS: readonly string[] = Object.keys(READ_COMMANDS);

function modesOf(parsed: ParsedArgs): Set<string> {
  const modes = new Set<string>();
  for (const o of parsed.options) if (o.def?.effect.kind === "mode") modes.add(o.def.effect.mode);
  return modes;
}

/** The first argument as a verb: literal, or `undefined` with a finding when the shell expands it. */
function verbOf(args: readonly ArgToken[], command: string): { verb: string | undefined; finding?: Finding } {
  const first = args[0];
  if (first === undefined) return { verb: undefined };
  if (first.value === undefined) return { verb: undefined, finding: ["ask", `the ${command} verb ${first.source} is expanded by the shell`] };
  return { verb: first.value };
}

function classifyBranch(args: readonly ArgToken[]): SubVerdict {
  const parsed = parseArgs(BRANCH_OPTIONS, args, { abbreviations: true, dashdash: "parsed" });
  const findings = [
    ...optionFindings(parsed, { positionals: false, paths: false, why: "git branch creates a branch of any name given" }),
    ...signatureFormat(parsed),
  ];
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
  if (changes.length === 0 && parsed.positionalCount + parsed.paths.length > 0 && !modes.has("list") && !modes.has("show-current")) {
    findings.push(["ask", `creates the branch ${names[0] ?? parsed.expanded[0]?.token.source ?? ""}`]);
    return { subcommand: "branch", findings, read: false, triggers: [] };
  }
  return { subcommand: changes.length > 0 ? "branch" : "branch (list)", findings, read: changes.length === 0, triggers: ["objects", "pager"] };
}

function classifyTag(args: readonly ArgToken[]): SubVerdict {
  const parsed = parseArgs(TAG_OPTIONS, args, { abbreviations: true, dashdash: "parsed" });
  const findings = [
    ...optionFindings(parsed, { positionals: false, paths: false, why: "git tag creates a tag of any name given" }),
    ...signatureFormat(parsed),
  ];
  const modes = modesOf(parsed);
  const verifies = parsed.options.some((o) => o.name === "verify");
  if (modes.has("delete")) findings.push(["ask", "deletes tags (-d)"]);
  if (modes.has("force")) findings.push(["ask", "moves an existing tag (--force)"]);
  if (modes.has("create")) findings.push(["ask", "creates a tag"]);
  const names = [...parsed.positionals, ...parsed.paths];
  const mutates = modes.has("delete") || modes.has("force") || modes.has("create");
  // `-v` verifies the named tags (a read, asked about for gpg like verify-tag), it creates nothing.
  if (!mutates && !verifies && parsed.positionalCount + parsed.paths.length > 0 && !modes.has("list")) {
    findings.push(["ask", `creates the tag ${names[0] ?? parsed.expanded[0]?.token.source ?? ""}`]);
    return { subcommand: "tag", findings, read: false, triggers: [] };
  }
  return {
    subcommand: mutates ? "tag" : verifies ? "tag (verify)" : "tag (list)",
    findings,
    read: !mutates,
    triggers: ["objects", "pager", ...(verifies ? (["signature"] as Trigger[]) : [])],
  };
}

/**
 * builtin/reflog.c. 2.39: show (the default, `git reflog <ref>` too), expire, delete, exists. Since 2.45: list;
 * since 2.51: drop, write. Anything else after `reflog` is read as `show <ref>` only when it cannot be a verb a
 * newer git knows: a word that is a verb of no version we model is `ask`.
 */
function classifyReflog(args: readonly ArgToken[]): SubVerdict {
  const { verb, finding } = verbOf(args, "reflog");
  if (finding !== undefined) return { subcommand: "reflog", findings: [finding], read: false, triggers: [] };
  const show = (rest: readonly ArgToken[]): SubVerdict => {
    const parsed = parseArgs(LOG_OPTIONS, rest, { abbreviations: false, dashdash: "first" });
    return {
      subcommand: "reflog show",
      findings: [...optionFindings(parsed), ...prettyFormat(parsed)],
      read: true,
      triggers: logTriggers(false)(parsed),
      switchedOff: logNeutralisers(parsed),
    };
  };
  if (verb === undefined || verb.startsWith("-")) return show(args);
  if (verb === "show") return show(args.slice(1));
  if (verb === "exists" || verb === "list") {
    const rest = args.slice(1);
    const findings: Finding[] = rest
      .filter((a) => a.value === undefined || a.value.startsWith("-"))
      .map((a) => ["ask", `${a.source}: not an argument git reflog ${verb} takes`]);
    if (verb === "list" && rest.length > 0) findings.push(["ask", "git reflog list takes no argument"]);
    return { subcommand: `reflog ${verb}`, findings, read: true, triggers: [] };
  }
  const writes: Record<string, string> = {
    expire: "deletes reflog entries (git reflog expire)",
    delete: "deletes reflog entries (git reflog delete)",
    drop: "deletes a whole reflog (git reflog drop, since 2.51)",
    write: "writes a reflog entry (git reflog write, since 2.51)",
  };
  if (writes[verb] !== undefined) return { subcommand: `reflog ${verb}`, findings: [["ask", writes[verb]]], read: false, triggers: [] };
  // `git reflog <ref>` is `git reflog show <ref>` in every version; a ref name is literal text that is not a verb.
  if (/^[a-z]+$/.test(verb) && !/^(head|main|master|stash|origin|refs)$/i.test(verb)) {
    return {
      subcommand: `reflog ${verb}`,
      findings: [["ask", `\`${verb}\` may be a verb of a git newer than the classifier models, or a ref: write git reflog show ${verb}`]],
      read: false,
      triggers: [],
    };
  }
  return show(args);
}

function classifyRemote(args: readonly ArgToken[]): SubVerdict {
  const head = parseArgs(REMOTE_OPTIONS, args, { abbreviations: true, stopAtPositional: true });
  const findings = optionFindings({ ...head, positionals: [], paths: [], expanded: head.expanded.filter((e) => e.role !== "positional") });
  const actionToken = args[args.length - head.positionalCount - head.paths.length];
  const expandedAction = head.expanded.find((e) => e.role === "positional");
  if (expandedAction !== undefined && head.positionals.length === 0) {
    return {
      subcommand: "remote",
      findings: [...findings, ["ask", `the remote verb ${expandedAction.token.source} is expanded by the shell`]],
      read: false,
      triggers: [],
    };
  }
  const action = head.positionals[0];
  const restIndex = actionToken === undefined ? args.length : args.indexOf(actionToken) + 1;
  const rest = args.slice(restIndex);
  // `-v` prints each remote's URLs, rewritten as git uses them.
  if (action === undefined) return { subcommand: "remote", findings, read: true, triggers: has(head, "verbose") ? ["remote-urls"] : [] };
  if (action === "show") {
    const parsed = parseArgs(REMOTE_SHOW_OPTIONS, rest, { abbreviations: true });
    findings.push(...optionFindings(parsed, { positionals: false, paths: false, why: "a remote's name must be known" }));
    // Without a name, `git remote show` lists the remotes as `git remote` does (builtin/remote.c `show`: argc == 0).
    if (parsed.positionalCount === 0) return { subcommand: "remote show", findings, read: true, triggers: [] };
    if (!parsed.options.some((o) => o.name === "n")) {
      findings.push(["ask", "contacts the remote to list its branches (add -n to stay local)"]);
      return { subcommand: "remote show", findings, read: false, triggers: [] };
    }
    return { subcommand: "remote show", findings, read: true, triggers: ["remote-urls"] };
  }
  if (action === "get-url") {
    const parsed = parseArgs(REMOTE_GET_URL_OPTIONS, rest, { abbreviations: true });
    return { subcommand: "remote get-url", findings: [...findings, ...optionFindings(parsed)], read: true, triggers: ["remote-urls"] };
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
  findings.push(["ask", what[action] ?? `runs git remote ${action}, a verb the classifier does not know`]);
  return { subcommand: `remote ${action}`, findings, read: false, triggers: [] };
}

function classifyStash(args: readonly ArgToken[]): SubVerdict {
  const { verb, finding } = verbOf(args, "stash");
  if (finding !== undefined) return { subcommand: "stash", findings: [finding], read: false, triggers: [] };
  if (verb === "list") {
    // builtin/stash.c list_stash runs `git log --format=... -g refs/stash` with the rest of the arguments.
    const parsed = parseArgs(LOG_OPTIONS, args.slice(1), { abbreviations: false, dashdash: "first" });
    return {
      subcommand: "stash list",
      findings: [...optionFindings(parsed), ...prettyFormat(parsed)],
      read: true,
      triggers: logTriggers(false)(parsed),
      switchedOff: logNeutralisers(parsed),
    };
  }
  if (verb === "show") {
    // builtin/stash.c show_stash: no textconv, no external diff (it does not set allow_textconv/allow_external).
    const parsed = parseArgs(STASH_SHOW_OPTIONS, args.slice(1), { abbreviations: false, dashdash: "first" });
    return {
      subcommand: "stash show",
      findings: optionFindings(parsed),
      read: true,
      triggers: ["objects", "pager", "attributes", "order-file", "index", ...patchTriggers(parsed, true)],
    };
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
    export: "exports the stash (since 2.51)",
    import: "imports stash entries (since 2.51)",
  };
  if (verb === undefined || verb.startsWith("-")) return { subcommand: "stash push", findings: [["ask", what.push!]], read: false, triggers: [] };
  return {
    subcommand: `stash ${verb}`,
    findings: [["ask", what[verb] ?? `runs git stash ${verb}, a verb the classifier does not know`]],
    read: false,
    triggers: [],
  };
}

function classifyWorktree(args: readonly ArgToken[]): SubVerdict {
  const { verb, finding } = verbOf(args, "worktree");
  if (finding !== undefined) return { subcommand: "worktree", findings: [finding], read: false, triggers: [] };
  if (verb === "list") {
    const parsed = parseArgs(WORKTREE_LIST_OPTIONS, args.slice(1), { abbreviations: true });
    return { subcommand: "worktree list", findings: optionFindings(parsed, { positionals: false, paths: false }), read: true, triggers: [] };
  }
  const findings: Finding[] = [["ask", verb === undefined ? "git worktree without an action" : `changes worktrees (git worktree ${verb})`]];
  findings.push(...notableFindings("worktree", literalValues(args.slice(1))));
  return { subcommand: verb === undefined ? "worktree" : `worktree ${verb}`, findings, read: false, triggers: [] };
}

/** The verdict for a config write: a program or file written into global or system config is `deny`. */
function configWrite(
  key: string | undefined,
  value: string | undefined,
  scope: "global" | "system" | "file" | "repository",
  findings: Finding[],
): void {
  const rule = key === undefined ? undefined : configKeyRule(key);
  const outside = scope !== "repository";
  if (key === undefined) {
    findings.push(["ask", "writes a config key the shell expands"]);
    return;
  }
  const disabled = rule === undefined || (value !== undefined && settingDisabled(key, value, "repository"));
  if (outside && rule !== undefined && !disabled && rule.kind !== "switch") {
    findings.push(["deny", `writes ${key} into the ${scope} config, outside the repository: ${rule.what}, for every repository of the user`]);
    return;
  }
  if (outside) {
    findings.push(["ask", `writes the config key ${key} into the ${scope} config, outside the repository`]);
    return;
  }
  findings.push(["ask", rule === undefined ? `writes the config key ${key}` : `writes the config key ${key}, which ${rule.what}`]);
}

function configScope(parsed: ParsedArgs): "global" | "system" | "file" | "repository" {
  if (has(parsed, "system")) return "system";
  if (has(parsed, "global")) return "global";
  if (has(parsed, "file", "f")) return "file";
  return "repository";
}

/**
 * Keys that hold no credential, whoever sets them: names, switches, formats, program names and paths. Any other
 * key may (http.extraHeader, http.proxy with a password, sendemail.smtpPass, hub.oauthToken, a token in
 * url.*.insteadOf, remote.*.url or submodule.*.url, credential.*, and any tool's own section): read from every
 * scope, it is asked about. A list of what is safe, since no list of what is secret can be complete.
 */
const PLAIN_CONFIG =
  /^(user\.(name|email|signingkey|useconfigonly)|author\.(name|email)|committer\.(name|email)|(core|init|pull|push|merge|rebase|diff|commit|tag|log|status|format|fetch|gc|i18n|help|blame|grep|rerere|feature|index|pack|transfer|checkout|clean|am|apply|branch|column|interactive|notes|stash|submodule|advice|color|pager|worktree|safe|sequence|trace2|versionsort|protocol|uploadpack|receive|maintenance)\.[a-z0-9-]+|branch\..+\.(remote|pushremote|merge|rebase|description)|remote\..+\.(fetch|push|tagopt|prune|mirror|skipdefaultupdate|skipfetchall)|(alias|color|pager|advice)\..+|gpg\.(format|program)|extensions\.[a-z0-9-]+)$/i;

/**
 * A config read prints values of every scope, the user's global and system config included, unless it names
 * the repository's own (--local, --worktree, --blob): a listing, or a key that may hold a credential, then
 * prints what is outside the repository and may be secret (`http.extraHeader`, a token in `url.*.insteadOf`).
 */
function configPrinting(parsed: ParsedArgs, lists: boolean, key: string | undefined): Finding[] {
  // A scope of the repository's own: its config files (their includes are the repository check's to judge), or a
  // blob whose includes are not followed. git follows a blob's includes unless told --no-includes (only a file
  // scope turns them off by default), and the repository check never sees them: `[include] path = ~/.gitconfig`
  // in a committed file makes `git config --blob=HEAD:x --list` print the user's global config.
  if (has(parsed, "local", "worktree") || (has(parsed, "blob") && !followsIncludes(parsed))) return [];
  if (lists)
    return [
      [
        "ask",
        "prints the user's global and system config too, which may hold credentials (http.extraHeader, tokens in url.*.insteadOf): add --local for the repository's own",
      ],
    ];
  if (key !== undefined && !PLAIN_CONFIG.test(key))
    return [["ask", `prints ${key}, which may hold a credential from the user's global config: add --local for the repository's own`]];
  return [];
}

/** Whether the last of --includes and --no-includes is --includes, or neither is given (git's default but for a file). */
function followsIncludes(parsed: ParsedArgs): boolean {
  let follows = true;
  for (const o of parsed.options) {
    if (o.negates?.long.includes("includes") === true || (o.negates === undefined && o.def?.long.includes("no-includes") === true)) follows = false;
    else if (o.negates === undefined && o.def?.long.includes("includes") === true) follows = true;
  }
  return follows;
}

/**
 * builtin/config.c. 2.39: `git config [<mode option>] <name> [<value>]`. Since 2.46 also verbs: `get`, `list`
 * (reads), `set`, `unset`, `rename-section`, `remove-section`, `edit` (writes). In 2.39 `git config get x` reads
 * the key `get`, which has no section: it fails without writing, so reading it as the newer verb is safe.
 */
function classifyConfig(args: readonly ArgToken[]): SubVerdict {
  const first = args[0];
  if (first?.value !== undefined && CONFIG_READ_VERBS.has(first.value)) {
    const parsed = parseArgs(CONFIG_VERB_OPTIONS, args.slice(1), { abbreviations: true, dashdash: "parsed" });
    const findings = optionFindings(parsed);
    const count = parsed.positionalCount + parsed.paths.length;
    if (first.value === "get" && count !== 1) findings.push(["ask", "git config get takes exactly one key"]);
    if (first.value === "list" && count !== 0) findings.push(["ask", "git config list takes no key"]);
    const lists = first.value === "list" || has(parsed, "regexp", "url");
    findings.push(...configPrinting(parsed, lists, first.value === "get" ? parsed.positionals[0] : undefined));
    return { subcommand: `config ${first.value}`, findings, read: true, triggers: lists || has(parsed, "show-origin") ? ["config-print"] : [] };
  }
  if (first?.value !== undefined && CONFIG_WRITE_VERBS.has(first.value)) {
    const parsed = parseArgs(CONFIG_VERB_OPTIONS, args.slice(1), { abbreviations: true, dashdash: "parsed" });
    const findings = optionFindings(parsed, { positionals: true, paths: true });
    if (first.value === "edit") findings.push(["ask", "opens the config in an editor (git config edit)"]);
    else configWrite(parsed.positionals[0], parsed.positionals[1], configScope(parsed), findings);
    return { subcommand: `config ${first.value}`, findings, read: false, triggers: [] };
  }
  if (first?.value === undefined && first !== undefined && !first.prefix.startsWith("-")) {
    return {
      subcommand: "config",
      findings: [["ask", `the config key or verb ${first.source} is expanded by the shell`]],
      read: false,
      triggers: [],
    };
  }
  const parsed = parseArgs(CONFIG_OPTIONS, args, { abbreviations: true, dashdash: "parsed" });
  const findings = optionFindings(parsed, { positionals: true, paths: true });
  const modes = modesOf(parsed);
  const names = [...parsed.positionals, ...parsed.paths];
  const count = parsed.positionalCount + parsed.paths.length;
  const writes = modes.has("set") || modes.has("edit") || (!modes.has("get") && count >= 2);
  if (modes.has("edit")) findings.push(["ask", "opens the config in an editor (--edit)"]);
  if (writes && !modes.has("edit"))
    configWrite(parsed.positionals[0] ?? (parsed.expanded.length > 0 ? undefined : names[0]), names[1], configScope(parsed), findings);
  if (!writes && count === 0 && !modes.has("get")) findings.push(["ask", "git config without a key or mode prints its usage"]);
  const lists = has(parsed, "list", "get-regexp", "get-urlmatch");
  if (!writes) findings.push(...configPrinting(parsed, lists, lists ? undefined : names[0]));
  return {
    subcommand: writes ? "config (write)" : "config (read)",
    findings,
    read: !writes,
    triggers: lists || has(parsed, "show-origin") ? ["config-print"] : [],
  };
}

/**
 * builtin/rev-parse.c has its own argument loop (no parse-options): the options of Documentation/git-rev-parse
 * (2.39 and 2.55; --show-ref-format since 2.45, --exclude-hidden since 2.39). Two look outside the repository:
 * --show-superproject-working-tree runs `git ls-files` in the superproject (whose config is not checked), and
 * --resolve-git-dir reads the path it is given.
 */
const REV_PARSE_FLAGS = new Set(
  `--parseopt --sq-quote --keep-dashdash --stop-at-non-option --stuck-long --revs-only --no-revs --flags --no-flags --verify
  -q --quiet --sq --not --symbolic --symbolic-full-name --all --local-env-vars --git-dir --git-common-dir --show-toplevel
  --shared-index-path --absolute-git-dir --is-inside-git-dir --is-inside-work-tree --is-bare-repository
  --is-shallow-repository --show-cdup --show-prefix --show-ref-format --end-of-options`
    .split(/\s+/)
    .filter((f) => f !== ""),
);
const REV_PARSE_STUCK =
  /^--(short|abbrev-ref|branches|tags|remotes|glob|exclude|exclude-hidden|disambiguate|path-format|output-object-format|show-object-format|since|after|until|before|default|prefix)(=.*)?$/;
const REV_PARSE_WITH_VALUE = new Set(["--default", "--prefix", "--git-path"]);
const REV_PARSE_OUTSIDE: Record<string, string> = {
  "--show-superproject-working-tree":
    "runs git ls-files in the superproject, a repository whose config is not checked (--show-superproject-working-tree)",
  "--resolve-git-dir": "reads a path of the caller's choosing (--resolve-git-dir)",
};

function classifyRevParse(args: readonly ArgToken[]): SubVerdict {
  const findings: Finding[] = [];
  const revisions: string[] = [];
  let optionsEnded = false;
  for (let i = 0; i < args.length; i++) {
    const token = args[i]!;
    const v = token.value;
    if (v === undefined) {
      findings.push(["ask", `${token.source} is expanded by the shell: rev-parse may read it as an option`]);
      continue;
    }
    if (optionsEnded || !v.startsWith("-")) {
      revisions.push(v);
      continue;
    }
    if (v === "--") {
      optionsEnded = true;
      continue;
    }
    if (REV_PARSE_OUTSIDE[v] !== undefined) findings.push(["ask", REV_PARSE_OUTSIDE[v]!]);
    else if (REV_PARSE_WITH_VALUE.has(v)) i++;
    else if (!REV_PARSE_FLAGS.has(v) && !REV_PARSE_STUCK.test(v)) findings.push(["ask", `${v}: not an option of git rev-parse the classifier knows`]);
  }
  // Only a revision argument makes it read objects: `--show-toplevel`, `--git-dir` and friends read none.
  const triggers: Trigger[] = [];
  if (revisions.length > 0) triggers.push("objects");
  if (revisions.some((p) => p.startsWith(":") && !p.startsWith(":/"))) triggers.push("index");
  const stdin = args.some((a) => a.value === "--parseopt") ? "reads an option specification from standard input (--parseopt)" : undefined;
  return { subcommand: null, findings, read: true, triggers, ...(stdin !== undefined ? { stdin } : {}) };
}

/** builtin/symbolic-ref.c: one name reads, a second name or -d writes. */
function classifySymbolicRef(args: readonly ArgToken[]): SubVerdict {
  const parsed = parseArgs(SYMBOLIC_REF_OPTIONS, args, { abbreviations: true, dashdash: "parsed" });
  const findings = optionFindings(parsed, { positionals: false, paths: false, why: "a second name makes symbolic-ref write" });
  const count = parsed.positionalCount + parsed.paths.length;
  if (modesOf(parsed).has("write") || count > 1) {
    findings.push(["ask", "changes or deletes a symbolic ref"]);
    return { subcommand: "symbolic-ref", findings, read: false, triggers: [] };
  }
  if (count === 0) findings.push(["ask", "git symbolic-ref without a name prints its usage"]);
  return { subcommand: "symbolic-ref", findings, read: true, triggers: [] };
}

/** builtin/notes.c: `list` (the default) and `show` read; every other verb writes or merges. */
function classifyNotes(args: readonly ArgToken[]): SubVerdict {
  const head = parseArgs(NOTES_OPTIONS, args, { abbreviations: true, stopAtPositional: true });
  const findings = optionFindings({ ...head, positionals: [], paths: [], expanded: head.expanded.filter((e) => e.role !== "positional") });
  const verbAt = args.findIndex((a, i) => i >= args.length - head.positionalCount - head.paths.length && a !== undefined);
  const verbToken = verbAt === -1 ? undefined : args[verbAt];
  if (verbToken !== undefined && verbToken.value === undefined)
    return {
      subcommand: "notes",
      findings: [...findings, ["ask", `the notes verb ${verbToken.source} is expanded by the shell`]],
      read: false,
      triggers: [],
    };
  const verb = verbToken?.value ?? "list";
  const rest = verbAt === -1 ? [] : args.slice(verbAt + 1);
  if (verb === "list" || verb === "show") {
    const parsed = parseArgs(NOTES_VERB_OPTIONS, rest, { abbreviations: true, dashdash: "parsed" });
    findings.push(...optionFindings(parsed));
    return { subcommand: `notes ${verb}`, findings, read: true, triggers: ["objects", ...(verb === "show" ? (["pager"] as Trigger[]) : [])] };
  }
  findings.push(["ask", `changes notes (git notes ${verb})`]);
  return { subcommand: `notes ${verb}`, findings, read: false, triggers: [] };
}

/** builtin/var.c: prints one known variable, or `-l` everything (config included). It runs no editor or pager. */
function classifyVar(args: readonly ArgToken[]): SubVerdict {
  const only = args[0];
  if (args.length === 1 && only?.value === "-l") {
    return {
      subcommand: "var",
      findings: [["ask", "git var -l prints the user's global and system config too, which may hold credentials"]],
      read: true,
      triggers: ["config-print"],
    };
  }
  if (args.length === 1 && only?.value !== undefined && VAR_NAMES.has(only.value)) {
    return { subcommand: "var", findings: [], read: true, triggers: [] };
  }
  return {
    subcommand: "var",
    findings: [["ask", `git var ${args.map((a) => a.source).join(" ")}: not one variable name git var knows`]],
    read: false,
    triggers: [],
  };
}

/** git-submodule.sh (2.39) / builtin/submodule--helper.c: `status` reads, running git in each submodule. */
function classifySubmodule(args: readonly ArgToken[]): SubVerdict {
  const quiet = args[0]?.value === "--quiet" || args[0]?.value === "-q" ? 1 : 0;
  const verbToken = args[quiet];
  if (verbToken?.value === "status") {
    const parsed = parseArgs(SUBMODULE_STATUS_OPTIONS, args.slice(quiet + 1), { abbreviations: false, dashdash: "parsed" });
    return {
      subcommand: "submodule status",
      findings: optionFindings(parsed, { positionals: false, paths: true }),
      read: true,
      triggers: ["index", "submodules", "objects", "work-tree"],
    };
  }
  return classifyOther("submodule", args);
}

function literalValues(args: readonly ArgToken[]): string[] {
  return args.map((a) => a.value ?? a.prefix);
}

/** Commands outside the read allowlist: `ask`, or `deny` for the options that run or touch what they must not. */
function classifyOther(sub: string, tokens: readonly ArgToken[]): SubVerdict {
  const args = literalValues(tokens);
  const spec = MUTATIONS[sub];
  const findings: Finding[] = [];
  if (spec !== undefined) findings.push(["ask", `git ${sub} ${spec.summary}`]);
  else if (KNOWN_COMMANDS.has(sub)) findings.push(["ask", `git ${sub} is not a read command on the allowlist`]);
  else findings.push(["ask", `git ${sub} is not a git command: it may be an alias or an external git-${sub} program`]);
  // An expanded word counts as its literal start: `--upload-pack=$X` is still --upload-pack.
  findings.push(...notableFindings(sub, args));
  if (sub === "bisect" && args[0] === "run") findings.push(["deny", "runs a command of the caller's choosing (git bisect run)"]);
  if (sub === "submodule" && args.includes("foreach")) findings.push(["deny", "runs a shell command in every submodule (git submodule foreach)"]);
  if (sub === "bundle" && args[0] === "create") findings.push(["deny", "writes a bundle file anywhere on disk (git bundle create <file>)"]);
  if (sub === "bundle" && args[0] !== undefined && args[0] !== "create") findings.push(["ask", "reads a bundle file from anywhere on disk"]);
  if (sub === "verify-commit" || sub === "verify-tag") findings.push(["ask", VERIFIES_SIGNATURES]);
  if (sub === "config") findings.push(...classifyConfig(tokens).findings);
  return { subcommand: sub, findings, read: false, triggers: [] };
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

function notableFindings(sub: string, args: readonly string[]): Finding[] {
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
    if ((sub === "checkout" || sub === "restore") && token === ".")
      push(["ask", "overwrites every file with its committed version, discarding local changes"]);
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
  config annotate backfill replay refs repo last-modified`
    .split(/\s+/)
    .filter((s) => s !== ""),
);

/**
 * Every config key that names a program or a file, what makes git use each (`Trigger`), and whether a value
 * switches it off. The classifier, the repository check and the git runner's config scan all decide with these
 * rules; they live apart from the option tables (git-tables.ts) so that the tools, which need only them, do not
 * build every option table of the classifier when they load.
 */

/**
 * What a command can make git do with a setting: the situations in which git runs the program or reads the
 * file a config key names. A read command lists the triggers it can fire (classify.ts); a setting of the
 * repository matters to it only when their triggers meet.
 */
export type Trigger =
  /**
   * Reading the index: core.fsmonitor runs on every index read (fsmonitor.c `tweak_fsmonitor`, 2.39 and 2.55).
   * Any command that computes a diff of blobs reads it too (diff.c `reuse_worktree_file` looks up the index):
   * log --stat/-p/-S, show, whatchanged, diff-tree, cherry-pick marks, range-diff.
   */
  | "index"
  /** Writing the index back (status and diff refresh it): the post-index-change hook (read-cache.c). */
  | "index-write"
  /** Comparing work tree files with the index: clean/process filters run on stat-dirty files (`ce_compare_data`). */
  | "work-tree-content"
  /** Patch, word-diff, pickaxe or blame output of porcelain commands: diff.<driver>.textconv (on by default there). */
  | "textconv"
  /** `git diff` only (builtin/diff.c sets `allow_external`): diff.external, diff.<driver>.command. */
  | "external-diff"
  /** Output to a terminal: core.pager, pager.<cmd> (git starts no pager when stdout is not a terminal). */
  | "pager"
  /** The log family's output (log, show, whatchanged, reflog show, stash list, range-diff): log.showSignature. */
  | "log-output"
  /** Verifying signatures: gpg.program and friends, gpg.ssh.allowedSignersFile. */
  | "signature"
  /** `--alternate-refs` and negotiation with alternates: core.alternateRefsCommand. */
  | "alternate-refs"
  /** git blame: blame.ignoreRevsFile (its first bad line is printed in the error). */
  | "blame"
  /** Author and committer names of log, shortlog, blame: mailmap.file. */
  | "mailmap"
  /** Untracked and ignored files: core.excludesFile. */
  | "excludes"
  /** Any attribute lookup (diff drivers, filters, eol): core.attributesFile. */
  | "attributes"
  /** Patch output order: diff.orderFile. */
  | "order-file"
  /** Reading objects: in a partial clone a missing one is fetched, running the transport (ssh, helpers...). */
  | "objects"
  /** Recursing into submodules: their own config applies there. */
  | "submodules"
  /** Reading the work tree: core.worktree decides where it is. */
  | "work-tree"
  /** Printing config entries: include.path/includeIf make them come from any file. */
  | "config-print"
  /** Reading config at all: every git command reads the files include.path/includeIf name. */
  | "config"
  /** Re-merging merge commits to show them (`--remerge-diff`): the merge drivers the attributes select. */
  | "remerge"
  /** Printing remote URLs (`git remote -v`, `get-url`): the user's url.*.insteadOf rules rewrite them. */
  | "remote-urls"
  // Triggers of mutations and other commands that are never allowed anyway; listed so every key has a use.
  | "help"
  | "editor"
  | "hooks"
  | "network"
  | "merge"
  | "difftool"
  | "interactive"
  | "checkout"
  | "maintenance"
  | "send-email"
  | "trailers"
  | "alias"
  | "gui"
  | "server";

/** What a key's value is: a program (run through the shell, mostly), a file or directory, or a switch. */
export type ConfigValueKind = "program" | "path" | "switch" | "url";

export interface ConfigKeyRule {
  /** Matches the key with section and variable name lower-cased (a subsection keeps its case: `.+` matches it). */
  pattern: RegExp;
  kind: ConfigValueKind;
  /** When git uses it. */
  fires: readonly Trigger[];
  what: string;
  /** The first git version that has the key, when newer than 2.39. */
  since?: string;
}

/**
 * Every config key of git's documentation (Documentation/config/*.txt in 2.39, *.adoc in 2.55) whose value is a
 * command or a path, plus the switches that make git run such a program where it would not (log.showSignature).
 * Keys only a server, a GUI or a mail command reads are included: a command line or a repository may set them
 * too. Order matters only for readability: a key matches at most one rule.
 */
export const CONFIG_KEYS: readonly ConfigKeyRule[] = [
  // Index and work tree.
  {
    pattern: /^core\.fsmonitor$/,
    kind: "program",
    fires: ["index"],
    what: "runs a program on every read of the index (status, diff, ls-files, grep...)",
  },
  {
    pattern: /^core\.worktree$/,
    kind: "path",
    fires: ["work-tree"],
    what: "puts the work tree in another directory, whose files reads then list and show",
  },
  { pattern: /^core\.excludesfile$/, kind: "path", fires: ["excludes"], what: "reads ignore patterns from a file" },
  {
    pattern: /^core\.attributesfile$/,
    kind: "path",
    fires: ["attributes"],
    what: "reads attributes (which can select filters and diff drivers) from a file",
  },
  {
    pattern: /^filter\..+\.(clean|process)$/,
    kind: "program",
    fires: ["work-tree-content", "checkout"],
    what: "runs a filter program on work tree files (clean) or through a long-running process",
  },
  { pattern: /^filter\..+\.smudge$/, kind: "program", fires: ["checkout"], what: "runs a filter program on files git writes to the work tree" },
  {
    pattern: /^hook\..+\.command$/,
    kind: "program",
    fires: ["hooks", "index-write"],
    what: "runs a hook command for the events hook.<name>.event names",
    since: "2.54",
  },
  { pattern: /^core\.hookspath$/, kind: "path", fires: ["hooks", "index-write"], what: "runs hooks from another directory" },
  // Output.
  { pattern: /^core\.pager$/, kind: "program", fires: ["pager"], what: "names the pager program" },
  { pattern: /^pager\..+$/, kind: "program", fires: ["pager"], what: "names a pager program, or turns paging on, for one command" },
  { pattern: /^diff\.external$/, kind: "program", fires: ["external-diff"], what: "runs an external diff program instead of git's diff" },
  {
    pattern: /^diff\..+\.command$/,
    kind: "program",
    fires: ["external-diff"],
    what: "runs an external diff program for the files an attribute selects",
  },
  { pattern: /^diff\..+\.textconv$/, kind: "program", fires: ["textconv"], what: "runs a program that converts files to text before diffing them" },
  { pattern: /^diff\.orderfile$/, kind: "path", fires: ["order-file"], what: "reads the order of files in a patch from a file" },
  {
    pattern: /^log\.showsignature$/,
    kind: "switch",
    fires: ["log-output"],
    what: "makes log, show and whatchanged verify every signature (runs gpg)",
  },
  // A default or named format with %G placeholders verifies signatures wherever it is used (pretty.c).
  {
    pattern: /^(format\.pretty|pretty\..+)$/,
    kind: "switch",
    fires: ["log-output"],
    what: "is a log format whose %G placeholders verify signatures (runs gpg)",
  },
  {
    pattern: /^submodule\.recurse$/,
    kind: "switch",
    fires: ["submodules"],
    what: "makes reads recurse into submodules, where their own config applies",
  },
  { pattern: /^mailmap\.file$/, kind: "path", fires: ["mailmap"], what: "reads a mailmap from a file" },
  {
    pattern: /^blame\.ignorerevsfile$/,
    kind: "path",
    fires: ["blame"],
    what: "reads revisions to ignore from a file (git blame prints its first unreadable line)",
  },
  // Signatures.
  { pattern: /^gpg(\.[a-z0-9]+)?\.program$/, kind: "program", fires: ["signature"], what: "names the program that signs and verifies signatures" },
  {
    pattern: /^gpg\.ssh\.(allowedsignersfile|revocationfile)$/,
    kind: "path",
    fires: ["signature"],
    what: "reads the trusted ssh signing keys from a file",
  },
  { pattern: /^gpg\.ssh\.defaultkeycommand$/, kind: "program", fires: ["signature"], what: "runs a program to pick the ssh signing key" },
  { pattern: /^user\.signingkey$/, kind: "path", fires: ["signature"], what: "names the signing key (a key file for ssh signatures)" },
  {
    pattern: /^core\.alternaterefscommand$/,
    kind: "program",
    fires: ["alternate-refs", "network"],
    what: "runs a program to list the refs of alternates",
  },
  // Config itself.
  {
    pattern: /^include\.path$/,
    kind: "path",
    fires: ["config", "config-print"],
    what: "includes config from another file, which every git command then reads",
  },
  {
    pattern: /^includeif\..+\.path$/,
    kind: "path",
    fires: ["config", "config-print"],
    what: "includes config from another file, which every git command then reads",
  },
  // Help.
  { pattern: /^man\.viewer$/, kind: "program", fires: ["help"], what: "names the man page viewer git help runs" },
  { pattern: /^man\..+\.(cmd|path)$/, kind: "program", fires: ["help"], what: "names a man viewer program" },
  { pattern: /^help\.(format|browser|htmlpath)$/, kind: "program", fires: ["help"], what: "picks the program or pages git help opens" },
  { pattern: /^web\.browser$/, kind: "program", fires: ["help"], what: "names the web browser git help and instaweb open" },
  { pattern: /^browser\..+\.(cmd|path)$/, kind: "program", fires: ["help"], what: "names a browser program" },
  // Editors and hooks of mutations.
  { pattern: /^(core|sequence)\.editor$/, kind: "program", fires: ["editor"], what: "names the editor program" },
  { pattern: /^commit\.template$/, kind: "path", fires: ["editor"], what: "reads the commit message template from a file" },
  { pattern: /^core\.commentchar$/, kind: "switch", fires: [], what: "" },
  // Network.
  { pattern: /^core\.sshcommand$/, kind: "program", fires: ["network"], what: "names the ssh program" },
  { pattern: /^ssh\.variant$/, kind: "switch", fires: ["network"], what: "changes how the ssh program is called" },
  { pattern: /^core\.gitproxy$/, kind: "program", fires: ["network"], what: "names a proxy program for git:// connections" },
  { pattern: /^core\.askpass$/, kind: "program", fires: ["network"], what: "names a password prompt program" },
  { pattern: /^credential(\..+)?\.helper$/, kind: "program", fires: ["network"], what: "names a credential helper program" },
  {
    pattern: /^remote\..+\.(uploadpack|receivepack)$/,
    kind: "program",
    fires: ["network"],
    what: "names the program run on the remote side (local and ssh remotes run it)",
  },
  { pattern: /^remote\..+\.vcs$/, kind: "program", fires: ["network"], what: "names a remote helper (git-remote-<vcs>) to run" },
  { pattern: /^remote\..+\.(url|pushurl)$/, kind: "url", fires: ["network"], what: "names a remote URL (an ext:: URL is a command)" },
  { pattern: /^url\..+\.(insteadof|pushinsteadof)$/, kind: "url", fires: ["network"], what: "rewrites remote URLs (to an ext:: command, too)" },
  { pattern: /^protocol\.(.+\.)?allow$/, kind: "switch", fires: ["network"], what: "allows transports such as ext::, which run commands" },
  {
    pattern: /^http\.(.+\.)?(sslcert|sslkey|sslcainfo|sslcapath|proxysslcert|proxysslkey|proxysslcainfo|cookiefile|pinnedpubkey)$/,
    kind: "path",
    fires: ["network"],
    what: "reads a certificate, key or cookie file",
  },
  { pattern: /^bundle\..+\.uri$/, kind: "url", fires: ["network"], what: "fetches bundles from a URI", since: "2.40" },
  { pattern: /^promisor\..+$/, kind: "switch", fires: ["network", "objects"], what: "changes how promisor remotes are used", since: "2.49" },
  { pattern: /^uploadpack\.packobjectshook$/, kind: "program", fires: ["server"], what: "runs a program instead of pack-objects when serving" },
  { pattern: /^receive\.procreceiverefs$/, kind: "switch", fires: ["server"], what: "hands refs to the proc-receive hook" },
  // Other mutations and tools.
  { pattern: /^merge\..+\.driver$/, kind: "program", fires: ["merge", "remerge"], what: "runs a merge driver program" },
  { pattern: /^(merge|diff)\.(tool|guitool)$/, kind: "program", fires: ["merge", "difftool"], what: "picks the merge or diff tool" },
  { pattern: /^(mergetool|difftool)\..+\.(cmd|path)$/, kind: "program", fires: ["merge", "difftool"], what: "names a merge or diff tool program" },
  { pattern: /^interactive\.difffilter$/, kind: "program", fires: ["interactive"], what: "runs a filter program on interactive diffs" },
  { pattern: /^submodule\..+\.update$/, kind: "program", fires: ["checkout"], what: "a `!command` runs on git submodule update" },
  { pattern: /^gc\.recentobjectshook$/, kind: "program", fires: ["maintenance"], what: "runs a program while pruning objects", since: "2.42" },
  { pattern: /^init\.templatedir$/, kind: "path", fires: ["hooks"], what: "copies hooks from a template directory into new repositories" },
  {
    pattern: /^sendemail\.(.+\.)?(smtpserver|tocmd|cccmd|headercmd|aliasesfile|smtpsslcertpath|smtpsslclientcert|smtpsslclientkey)$/,
    kind: "program",
    fires: ["send-email"],
    what: "names a program or file git send-email uses",
  },
  { pattern: /^trailer\..+\.(command|cmd)$/, kind: "program", fires: ["trailers"], what: "runs a program to compute a trailer" },
  { pattern: /^alias\..+$/, kind: "program", fires: ["alias"], what: "defines a git alias (a `!` alias runs a shell command)" },
  { pattern: /^imap\.tunnel$/, kind: "program", fires: ["send-email"], what: "runs a tunnel program for git imap-send" },
  {
    pattern: /^(guitool\..+\.cmd|instaweb\.(httpd|browser)|gui\.editor)$/,
    kind: "program",
    fires: ["gui"],
    what: "names a program of git gui or instaweb",
  },
  { pattern: /^format\.signaturefile$/, kind: "path", fires: ["send-email"], what: "reads a signature from a file (format-patch)" },
  { pattern: /^fsck\.skiplist$/, kind: "path", fires: ["network"], what: "reads object names to skip from a file" },
  { pattern: /^gitcvs\.logfile$/, kind: "path", fires: ["server"], what: "writes cvsserver's log to a file" },
  {
    pattern: /^trace2\.(normal|perf|event)target$/,
    kind: "path",
    fires: [],
    what: "writes trace output to a file (read from system and global config only)",
  },
];

/** The rule for a config key, or `undefined` when its value names no program or file. */
export function configKeyRule(key: string): ConfigKeyRule | undefined {
  const lower = lowerKey(key);
  const rule = CONFIG_KEYS.find((e) => e.pattern.test(lower));
  return rule === undefined || rule.what === "" ? undefined : rule;
}

/** Section and variable name lower-cased, the subsection (between the first and the last dot) kept as written. */
export function lowerKey(key: string): string {
  const first = key.indexOf(".");
  const last = key.lastIndexOf(".");
  if (first === -1) return key.toLowerCase();
  if (first === last) return key.toLowerCase();
  return `${key.slice(0, first).toLowerCase()}${key.slice(first, last)}${key.slice(last).toLowerCase()}`;
}

/** The executable-config description of a key, or `undefined` when the key names no program or file. */
export function executableConfig(key: string): string | undefined {
  return configKeyRule(key)?.what;
}

/** Config keys a `-c` may set without `ask`: output formatting only. */
export function harmlessConfig(key: string): boolean {
  const lower = key.toLowerCase();
  return (
    /^color\.[a-z.]+$/.test(lower) ||
    /^core\.(quotepath|abbrev|commentchar)$/.test(lower) ||
    /^log\.(date|decorate|abbrevcommit|follow|showroot|mailmap)$/.test(lower) ||
    /^diff\.(renames|renamelimit|algorithm|noprefix|mnemonicprefix|relative|context|interhunkcontext|indentheuristic|colormoved|suppressblankempty)$/.test(
      lower,
    ) ||
    /^status\.(short|branch|showuntrackedfiles|renames|relativepaths|showstash|aheadbehind)$/.test(lower) ||
    /^(format\.pretty|i18n\.logoutputencoding|grep\.(linenumber|column|patterntype|extendedregexp|fullname)|advice\..+|column\.ui)$/.test(lower)
  );
}

/** git's built-in pretty formats (pretty.c `builtin_formats`): no config can redefine them. */
const BUILTIN_FORMATS = new Set(["oneline", "short", "medium", "full", "fuller", "reference", "email", "raw", "mboxrd"]);

/**
 * Whether a pretty format (`--format=<v>`, format.pretty, pretty.<name>) names another format, an alias defined
 * by some config's `pretty.<name>`, rather than being one: a value with no `%` that is not `format:`/`tformat:`
 * and not exactly a built-in name (git also takes an abbreviation, which an alias of that name would win).
 */
export function namesFormatAlias(value: string): boolean {
  if (value === "" || value.includes("%") || /^t?format:/i.test(value)) return false;
  return !BUILTIN_FORMATS.has(value.toLowerCase());
}

/** Where a setting is: given with `-c`/`--config-env`/GIT_CONFIG_* for one command, or in a repository's config. */
export type SettingSource = "command-line" | "repository";

const FALSE = /^(false|no|off|0)$/i;
const TRUE = /^(true|yes|on|1)$/i;
/** Programs that run nothing of anyone's choosing: `:` (git's editor code skips it), `true`, `false`, `cat`. */
const INERT_PROGRAMS = new Set([":", "true", "false", "cat"]);

/**
 * Whether a setting, as git reads it, makes git run no program and read no file beyond what it does without
 * the key: the one answer for a `-c` on a command line and for a repository's own config (the config scan of
 * src/git/filter-scan.ts and the repository check ask this too). `value` is `null` for a key given without
 * `=` (`-c core.fsmonitor`, or `[core] fsmonitor` in a file), which git reads as boolean true.
 *
 * The same value means the same to git wherever it is set; the answer differs where what follows from it does:
 * - `pager.<cmd>=true` (or no value): in a repository it names no program (the pager that runs is the user's
 *   own core.pager/$PAGER/less), so it is disabled; on a command line it turns paging on for a command that
 *   would not page: not disabled (ask).
 * - `core.hooksPath=/dev/null` is disabled in both (no hook can be found below a file); an empty
 *   `core.hooksPath=` is not: git then looks for hooks at `/<name>` (path.c joins the empty directory).
 * - `core.sshCommand=` (empty): disabled in both: git tries to run the empty command and fails, running nothing.
 * - A path (`blame.ignoreRevsFile=x`, `core.excludesFile=x`): on a command line a file of the caller's choosing,
 *   never disabled unless empty or /dev/null; in a repository, whether it is outside the repository is a
 *   question for the caller that can resolve it (`ExecutableSetting.inside`), so not disabled here either.
 * A command-line setting also overrides the repository's: classify.ts treats a disabling `-c` as neutralising
 * the repository's setting of the same key (`-c core.fsmonitor=false status` in a repository with one).
 *
 * The value is taken exactly as git reads it, never trimmed: git keeps the spaces of a `-c` value and of a quoted
 * value in a file. `-c 'core.hooksPath= /dev/null'` is the relative path ` /dev/null`, a directory a cloned work
 * tree can hold, with hooks in it; `core.fsmonitor="false "` is a hook program named `false `.
 */
export function settingDisabled(key: string, value: string | null, where: SettingSource = "repository"): boolean {
  const lower = lowerKey(key);
  const rule = configKeyRule(lower);
  if (rule === undefined) return true;
  const v = value;
  if (/^core\.fsmonitor$/.test(lower)) return v !== null && (v === "" || FALSE.test(v));
  if (/^log\.showsignature$/.test(lower)) return v !== null && (v === "" || FALSE.test(v));
  if (/^pager\..+$/.test(lower)) {
    if (v === null || TRUE.test(v)) return where === "repository";
    return v === "" || FALSE.test(v) || INERT_PROGRAMS.has(v);
  }
  if (/^core\.hookspath$/.test(lower)) return v === "/dev/null";
  if (/^protocol\.(.+\.)?allow$/.test(lower)) return v === "never";
  if (/^ssh\.variant$/.test(lower)) return v === "ssh" || v === "auto" || v === "simple";
  if (/^promisor\./.test(lower)) return false;
  if (/^remote\..+\.(url|pushurl)$/.test(lower) || /^url\./.test(lower)) {
    // An ext:: URL is a command line git runs to "connect"; a URL is otherwise a place, not a program.
    return v === null || !/^ext::/i.test(v);
  }
  if (/^alias\./.test(lower)) return v === null || !v.trimStart().startsWith("!");
  if (/^(format\.pretty|pretty\..+)$/.test(lower)) return v === null || (!v.includes("%G") && !namesFormatAlias(v));
  // A switch is on with no value (boolean true) or any true value; off with a false one.
  if (rule.kind === "switch") return v !== null && (v === "" || FALSE.test(v));
  // A key without a value is an error for a string setting: git runs nothing for it.
  if (v === null) return true;
  if (rule.kind === "path") return v === "" || v === "/dev/null";
  return v === "" || INERT_PROGRAMS.has(v);
}

/** Whether config entries (lower-cased keys) make the repository a partial clone, whose reads may fetch. */
export function isPartialClone(entries: ReadonlyArray<{ key: string; value: string }>): boolean {
  return entries.some((e) => e.key === "extensions.partialclone" || (/^remote\..+\.promisor$/.test(e.key) && /^(true|yes|on|1)$/i.test(e.value)));
}

/** Triggers a read command can fire (every trigger that matters to an allowed command). */
export const READ_TRIGGERS: readonly Trigger[] = [
  "index",
  "index-write",
  "work-tree-content",
  "textconv",
  "external-diff",
  "pager",
  "log-output",
  "signature",
  "alternate-refs",
  "blame",
  "mailmap",
  "excludes",
  "attributes",
  "order-file",
  "objects",
  "submodules",
  "work-tree",
  "config-print",
  "config",
  "remerge",
];

/** Keys whose rule a read can fire: the repository check lists these (and classify.ts decides per read). */
export const READ_RELEVANT_CONFIG: readonly RegExp[] = CONFIG_KEYS.filter(
  (rule) => rule.what !== "" && rule.fires.some((t) => READ_TRIGGERS.includes(t) && t !== "objects"),
).map((rule) => rule.pattern);

/** Settings that matter only when a read fetches missing objects: in a partial clone it does, lazily. */
export const LAZY_FETCH_CONFIG: readonly RegExp[] = CONFIG_KEYS.filter((rule) => rule.fires.includes("network")).map((rule) => rule.pattern);

/**
 * The program-naming keys gitctx's own runner overrides on every git process it starts (src/git/hardening.ts:
 * `core.fsmonitor=false`, `core.hooksPath=/dev/null`, `core.pager=cat` and `--no-pager` for pager.<cmd>,
 * `diff.external=` and `--no-ext-diff --no-textconv`, emptied filter drivers, `gpg.*.program=false`,
 * `core.sshCommand=false`, `protocol.allow=never` for every transport and ext:: URL). A test checks each against
 * the runner's own settings. Credential helpers and other keys the runner also switches off are left out of the
 * report: they are ordinary user convenience, or no read gitctx runs would reach them.
 */
export const RUNNER_NEUTRALISED_CONFIG: readonly RegExp[] = [
  /^core\.fsmonitor$/,
  /^core\.hookspath$/,
  /^core\.pager$/,
  /^pager\..+$/,
  /^diff\.external$/,
  /^diff\..+\.(command|textconv)$/,
  /^filter\..+\.(clean|smudge|process)$/,
  /^gpg(\.[a-z0-9]+)?\.program$/,
  /^core\.sshcommand$/,
  /^core\.gitproxy$/,
  /^core\.askpass$/,
  /^remote\..+\.(uploadpack|vcs)$/,
  /^remote\..+\.(url|pushurl)$/,
  /^ssh\.variant$/,
  /^protocol\.(.+\.)?allow$/,
];

/**
 * Whether gitctx reports a repository setting as neutralised: a key its runner overrides
 * (`RUNNER_NEUTRALISED_CONFIG`) with a value that is not already disabled. Decided with the same
 * `settingDisabled` as the classifier's, so the report and the verdicts never disagree about a value.
 */
export function neutralisedSetting(key: string, value: string | null): boolean {
  const lower = lowerKey(key);
  if (!RUNNER_NEUTRALISED_CONFIG.some((p) => p.test(lower))) return false;
  return !settingDisabled(lower, value, "repository");
}

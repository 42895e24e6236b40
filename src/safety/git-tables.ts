/**
 * What git 2.39 accepts before and after each subcommand the classifier knows, as option tables. Options not
 * listed here are unknown to the classifier and make a command `ask`, never `allow`.
 */
import { ask, deny, mark, merge, mode, table, type OptionTable } from "./options.js";

const WRITES_FILE = "writes git's output to a file of the caller's choosing";

/** Diff options, shared by diff, log, show, rev-list, stash show and the diff plumbing. */
export const DIFF_OPTIONS: OptionTable = mark(
  mark(
    mark(
      mark(
        mark(
          table(`
  p|patch u s|no-patch U|unified= W|function-context raw patch-with-raw patch-with-stat numstat shortstat
  X|dirstat=? cumulative dirstat-by-file=? check summary name-only name-status stat=? stat-width= stat-name-width=
  stat-graph-width= stat-count= compact-summary binary full-index color=? ws-error-highlight= abbrev=? src-prefix=
  dst-prefix= line-prefix= no-prefix default-prefix inter-hunk-context= output-indicator-new= output-indicator-old=
  output-indicator-context= B|break-rewrites=? M|find-renames=? D|irreversible-delete C|find-copies=?
  find-copies-harder no-renames rename-empty follow minimal w|ignore-all-space b|ignore-space-change
  ignore-space-at-eol ignore-cr-at-eol ignore-blank-lines I|ignore-matching-lines= indent-heuristic patience
  histogram diff-algorithm= anchored= word-diff=? word-diff-regex= color-words=? color-moved=? color-moved-ws=
  relative=? a|text R exit-code quiet ext-diff textconv ignore-submodules=? submodule=? ita-invisible-in-index
  ita-visible-in-index S= G= pickaxe-all pickaxe-regex O= rotate-to= skip-to= find-object= diff-filter= output=
  l= z no-ext-diff no-textconv
`),
          ["output"],
          deny(WRITES_FILE),
        ),
        ["O"],
        deny("reads an order file from anywhere on disk (-O<orderfile>)"),
      ),
      ["ext-diff"],
      deny("runs the external diff program named in config (--ext-diff)"),
    ),
    ["textconv"],
    deny("runs the textconv programs named in config (--textconv)"),
  ),
  ["no-ext-diff", "no-textconv"],
  { kind: "safe" },
);

/** Revision walking and commit formatting (log, show, rev-list, shortlog, whatchanged, stash list). */
export const REVISION_OPTIONS: OptionTable = table(
  `
  n|max-count= skip= since= after= until= before= max-age= min-age= since-as-filter= author= committer=
  grep-reflog= grep= invert-grep all-match i|regexp-ignore-case basic-regexp E|extended-regexp F|fixed-strings
  P|perl-regexp remove-empty merges no-merges min-parents= max-parents= no-min-parents no-max-parents first-parent
  exclude-first-parent-only not all branches=? tags=? remotes=? glob= exclude= exclude-hidden= reflog
  alternate-refs single-worktree ignore-missing bisect stdin cherry-mark cherry-pick left-only right-only cherry
  g|walk-reflogs merge boundary simplify-by-decoration show-pulls full-history dense sparse simplify-merges
  ancestry-path=? date-order author-date-order topo-order reverse no-walk=? do-walk pretty=? format= abbrev-commit
  no-abbrev-commit oneline encoding= expand-tabs=? no-expand-tabs notes=? no-notes show-notes=? standard-notes
  no-standard-notes show-signature relative-date date= parents children left-right graph show-linear-break=? c cc
  dd remerge-diff m diff-merges= no-diff-merges combined-all-paths r t root L= count timestamp header objects
  objects-edge objects-edge-aggressive unpacked in-commit-order no-object-names object-names filter= no-filter
  filter-print-omitted missing= exclude-promisor-objects use-bitmap-index progress= disk-usage=? bisect-vars
  bisect-all log-size early-output=? quiet source use-mailmap mailmap clear-decorations decorate-refs=
  decorate-refs-exclude= decorate=? no-decorate no-color
`,
  { numeric: true },
);

/** `git log`, `git show`, `git whatchanged`: revision options plus diff options. */
export const LOG_OPTIONS: OptionTable = merge(DIFF_OPTIONS, REVISION_OPTIONS);

export const DIFF_COMMAND_OPTIONS: OptionTable = mark(
  merge(DIFF_OPTIONS, table("cached staged merge-base no-index 1|base 2|ours 3|theirs 0 c cc m")),
  ["no-index"],
  deny("compares files outside the repository (--no-index reads any path)"),
);

export const STATUS_OPTIONS: OptionTable = table(`
  v|verbose s|short b|branch show-stash ahead-behind porcelain=? long z|null u|untracked-files=? ignored=?
  ignore-submodules=? column=? no-column no-renames M|find-renames=? renames
`);

// blame hands the options it does not know to the revision parser, diff options included: `--output` writes.
export const BLAME_OPTIONS: OptionTable = mark(
  mark(
    mark(
      mark(
        merge(DIFF_OPTIONS, table(`
  incremental b root show-stats progress score-debug f|show-name n|show-number p|porcelain line-porcelain c t l s
  e|show-email w ignore-rev= ignore-revs-file= color-lines color-by-age minimal S= contents= C=? M=? L= abbrev=?
  textconv no-textconv no-ignore-revs-file since= date= first-parent reverse encoding= no-abbrev
`)),
        ["contents"],
        deny("reads the file contents from any path on disk (--contents)"),
      ),
      ["ignore-revs-file"],
      deny("reads a revisions file from any path on disk (--ignore-revs-file)"),
    ),
    ["S"],
    deny("reads a revisions file from any path on disk (-S <revs-file>)"),
  ),
  ["textconv"],
  deny("runs the textconv programs named in config (--textconv)"),
);

const BRANCH_LIST = mode("list");
export const BRANCH_OPTIONS: OptionTable = (() => {
  let t = table(`
  v|verbose q|quiet t|track=? set-upstream u|set-upstream-to= unset-upstream color=? no-color r|remotes contains=?
  no-contains=? with=? without=? abbrev=? no-abbrev a|all d|delete D m|move M c|copy C l|list show-current
  create-reflog edit-description f|force merged=? no-merged=? column=? no-column sort= points-at= i|ignore-case
  recurse-submodules format= omit-empty no-track
`);
  t = mark(t, ["list", "remotes", "all", "contains", "no-contains", "with", "without", "merged", "no-merged", "points-at"], BRANCH_LIST);
  t = mark(t, ["delete"], mode("delete"));
  t = mark(t, ["D"], mode("force-delete"));
  t = mark(t, ["move"], mode("rename"));
  t = mark(t, ["M"], mode("force-rename"));
  t = mark(t, ["copy"], mode("copy"));
  t = mark(t, ["C"], mode("force-copy"));
  t = mark(t, ["force"], mode("force"));
  t = mark(t, ["show-current"], mode("show-current"));
  t = mark(t, ["set-upstream-to", "unset-upstream", "set-upstream", "track", "no-track", "create-reflog", "recurse-submodules"], mode("change"));
  t = mark(t, ["edit-description"], mode("edit"));
  return t;
})();

export const TAG_OPTIONS: OptionTable = (() => {
  let t = table(`
  l|list d|delete v|verify a|annotate m|message= F|file= e|edit s|sign cleanup= u|local-user= f|force
  create-reflog column=? no-column contains=? no-contains=? with=? without=? merged=? no-merged=? sort= points-at=?
  format= color=? i|ignore-case n=? omit-empty
`);
  t = mark(t, ["list", "contains", "no-contains", "with", "without", "merged", "no-merged", "points-at", "n"], mode("list"));
  t = mark(t, ["delete"], mode("delete"));
  t = mark(t, ["force"], mode("force"));
  t = mark(t, ["verify"], ask("verifies signatures by running gpg (gpg.program)"));
  t = mark(t, ["annotate", "message", "file", "edit", "sign", "cleanup", "local-user", "create-reflog"], mode("create"));
  return t;
})();

export const MERGE_BASE_OPTIONS: OptionTable = table("a|all octopus independent is-ancestor fork-point");

export const DESCRIBE_OPTIONS: OptionTable = table(`
  contains debug all tags long first-parent abbrev=? exact-match candidates= match= exclude= always dirty=? broken=?
`);

export const LS_FILES_OPTIONS: OptionTable = mark(
  table(`
  c|cached d|deleted m|modified o|others i|ignored s|stage k|killed directory eol no-empty-directory
  empty-directory u|unmerged resolve-undo x|exclude= X|exclude-from= exclude-per-directory= exclude-standard
  full-name recurse-submodules error-unmatch with-tree= abbrev=? debug deduplicate sparse format= z t v f
`),
  ["exclude-from"],
  deny("reads an exclude file from any path on disk (--exclude-from)"),
);

export const LS_TREE_OPTIONS: OptionTable = table(`
  d r t l|long z name-only name-status object-only full-name full-tree format= abbrev=?
`);

export const CAT_FILE_OPTIONS: OptionTable = mark(
  mark(
    table(`
  t s e p allow-unknown-type use-mailmap mailmap batch=? batch-check=? batch-command=? batch-all-objects buffer
  follow-symlinks unordered textconv filters path= Z
`),
    ["textconv"],
    deny("runs the textconv programs named in config (--textconv)"),
  ),
  ["filters"],
  deny("runs the smudge filters named in config (--filters)"),
);

export const GREP_OPTIONS: OptionTable = (() => {
  let t = table(
    `
  cached no-index untracked exclude-standard recurse-submodules v|invert-match i|ignore-case w|word-regexp a|text I
  textconv no-textconv r|recursive max-depth= E|extended-regexp G|basic-regexp F|fixed-strings P|perl-regexp
  n|line-number column full-name h H l|files-with-matches|name-only L|files-without-match z|null o|only-matching
  c|count color=? no-color break heading C|context= B|before-context= A|after-context= threads= p|show-function
  W|function-context f= e= and or not q|quiet all-match O|open-files-in-pager=? ext-grep m|max-count= index
`,
    { numeric: true },
  );
  t = mark(t, ["no-index"], deny("searches files outside the repository (--no-index reads any path)"));
  t = mark(t, ["O"], deny("runs a program on the matching files (-O/--open-files-in-pager)"));
  t = mark(t, ["textconv"], deny("runs the textconv programs named in config (--textconv)"));
  t = mark(t, ["f"], deny("reads patterns from a file anywhere on disk (-f <file>)"));
  return t;
})();

// shortlog parses revision and diff options too: `git shortlog --output=<file>` writes the file.
export const SHORTLOG_OPTIONS: OptionTable = merge(LOG_OPTIONS, table("n|numbered s|summary e|email c|committer group= w=? format="));

export const FOR_EACH_REF_OPTIONS: OptionTable = table(`
  s|shell p|perl python tcl count= format= color=? sort= points-at= merged=? no-merged=? contains=? no-contains=?
  ignore-case omit-empty
`);

export const REMOTE_OPTIONS: OptionTable = table("v|verbose");
export const REMOTE_SHOW_OPTIONS: OptionTable = table("n");
export const REMOTE_GET_URL_OPTIONS: OptionTable = table("push all");

export const STASH_SHOW_OPTIONS: OptionTable = merge(DIFF_OPTIONS, table("u|include-untracked only-untracked"));

export const WORKTREE_LIST_OPTIONS: OptionTable = table("porcelain v|verbose z expire=");

export const CONFIG_OPTIONS: OptionTable = (() => {
  let t = table(`
  global system local worktree f|file= blob= get get-all get-regexp get-urlmatch replace-all add unset unset-all
  rename-section remove-section l|list fixed-value e|edit get-color get-colorbool t|type= bool int bool-or-int
  bool-or-str path expiry-date z|null name-only includes show-origin show-scope default=
`);
  t = mark(t, ["file"], deny("reads or writes a config file anywhere on disk (--file)"));
  t = mark(t, ["get", "get-all", "get-regexp", "get-urlmatch", "list", "get-color", "get-colorbool"], mode("get"));
  t = mark(t, ["replace-all", "add", "unset", "unset-all", "rename-section", "remove-section"], mode("set"));
  t = mark(t, ["edit"], mode("edit"));
  return t;
})();

export const SHOW_REF_OPTIONS: OptionTable = table("head tags heads d|dereference s|hash=? abbrev=? q|quiet verify exclude-existing=?");

export const NAME_REV_OPTIONS: OptionTable = table("name-only tags refs= exclude= all annotate-stdin stdin no-undefined always");

export const CHECK_IGNORE_OPTIONS: OptionTable = table("q|quiet v|verbose n|non-matching no-index z stdin");

export const COUNT_OBJECTS_OPTIONS: OptionTable = table("v|verbose H|human-readable");

export const CHERRY_OPTIONS: OptionTable = table("v abbrev=?");

export const DIFF_TREE_OPTIONS: OptionTable = merge(LOG_OPTIONS, table("stdin no-commit-id always merge-base v"));

// ---------------------------------------------------------------------------------------------------------
// Options of commands outside the read allowlist that still decide between `ask` and `deny`, and the
// force-like flags that `ask` must name.

export interface MutationSpec {
  /** Long options (without `--`) and short letters that make the command run or read something it must not. */
  denied: Record<string, string>;
  /** Long options and short letters worth naming in the reason, e.g. `force: "overwrites..."`. */
  notable: Record<string, string>;
  /** Short letters that take a value (so the letters after them in a bundle are that value). */
  shortWithValue: string;
  /** What the command does, for the reason. */
  summary: string;
}

const FORCE = "forces the operation (--force)";

export const MUTATIONS: Record<string, MutationSpec> = {
  commit: {
    summary: "creates a commit",
    denied: {},
    notable: { "no-verify": "skips the commit hooks (--no-verify)", n: "skips the commit hooks (-n/--no-verify)", amend: "rewrites the last commit (--amend)" },
    shortWithValue: "mFCcSut",
  },
  push: {
    summary: "pushes to a remote",
    denied: {
      "receive-pack": "runs a program of the caller's choosing on the remote side (--receive-pack)",
      exec: "runs a program of the caller's choosing on the remote side (--exec)",
    },
    notable: {
      force: "force-pushes, overwriting remote history (--force)",
      f: "force-pushes, overwriting remote history (-f)",
      "force-with-lease": "force-pushes, overwriting remote history (--force-with-lease)",
      "force-if-includes": "force-pushes (--force-if-includes)",
      delete: "deletes remote refs (--delete)",
      d: "deletes remote refs (-d)",
      mirror: "mirrors every ref, deleting remote refs missing locally (--mirror)",
      prune: "deletes remote refs missing locally (--prune)",
      "no-verify": "skips the pre-push hook (--no-verify)",
    },
    shortWithValue: "o",
  },
  reset: {
    summary: "moves HEAD or unstages changes",
    denied: {},
    notable: {
      hard: "discards uncommitted changes (--hard)",
      merge: "discards uncommitted changes (--merge)",
      keep: "moves HEAD and updates files (--keep)",
    },
    shortWithValue: "",
  },
  checkout: {
    summary: "switches branches or overwrites files",
    denied: {},
    notable: { force: "discards local changes (--force)", f: "discards local changes (-f)", "discard-changes": "discards local changes" },
    shortWithValue: "bB",
  },
  switch: {
    summary: "switches branches",
    denied: {},
    notable: { force: "discards local changes (--force)", f: "discards local changes (-f)", "discard-changes": "discards local changes", C: "resets an existing branch (-C)" },
    shortWithValue: "cC",
  },
  restore: { summary: "overwrites files in the work tree or index", denied: {}, notable: {}, shortWithValue: "s" },
  rebase: {
    summary: "rewrites history",
    denied: { exec: "runs a shell command after each commit (--exec)", x: "runs a shell command after each commit (-x)" },
    notable: { "no-verify": "skips the pre-rebase hook (--no-verify)", interactive: "opens an editor (--interactive)", i: "opens an editor (-i)" },
    shortWithValue: "xsX",
  },
  merge: {
    summary: "merges branches",
    denied: {},
    notable: { "no-verify": "skips the merge hooks (--no-verify)" },
    shortWithValue: "msXF",
  },
  clean: {
    summary: "deletes untracked files",
    denied: {},
    notable: {
      force: "deletes untracked files (--force)",
      f: "deletes untracked files (-f)",
      x: "also deletes ignored files (-x)",
      X: "deletes ignored files (-X)",
      d: "also deletes untracked directories (-d)",
    },
    shortWithValue: "e",
  },
  branch: { summary: "changes branches", denied: {}, notable: {}, shortWithValue: "u" },
  tag: { summary: "changes tags", denied: {}, notable: {}, shortWithValue: "mFu" },
  stash: { summary: "changes the stash", denied: {}, notable: {}, shortWithValue: "m" },
  fetch: {
    summary: "downloads from a remote",
    denied: { "upload-pack": "runs a program of the caller's choosing (--upload-pack)" },
    notable: { force: "overwrites local refs (--force)", f: "overwrites local refs (-f)", prune: "deletes local remote-tracking refs (--prune)" },
    shortWithValue: "jo",
  },
  pull: {
    summary: "fetches and merges",
    denied: { "upload-pack": "runs a program of the caller's choosing (--upload-pack)" },
    notable: { force: "overwrites local refs (--force)", f: "overwrites local refs (-f)", "no-verify": "skips the merge hooks (--no-verify)" },
    shortWithValue: "jXso",
  },
  clone: {
    summary: "clones a repository",
    denied: {
      "upload-pack": "runs a program of the caller's choosing (--upload-pack)",
      u: "runs a program of the caller's choosing (-u/--upload-pack)",
      template: "copies hooks from a directory of the caller's choosing (--template)",
    },
    notable: {},
    shortWithValue: "obcju",
  },
  "ls-remote": {
    summary: "contacts a remote",
    denied: { "upload-pack": "runs a program of the caller's choosing (--upload-pack)" },
    notable: {},
    shortWithValue: "",
  },
  archive: {
    summary: "creates an archive",
    denied: { exec: "runs a program of the caller's choosing on the remote side (--exec)", output: WRITES_FILE, o: WRITES_FILE },
    notable: {},
    shortWithValue: "o",
  },
  "format-patch": {
    summary: "writes patch files",
    denied: { output: WRITES_FILE, "output-directory": "writes patch files to a directory of the caller's choosing (--output-directory)", o: "writes patch files to a directory of the caller's choosing (-o)" },
    notable: {},
    shortWithValue: "ov",
  },
  difftool: {
    summary: "runs a diff tool",
    denied: { extcmd: "runs a command of the caller's choosing (--extcmd)", x: "runs a command of the caller's choosing (-x)" },
    notable: {},
    shortWithValue: "tx",
  },
  "fetch-pack": { summary: "fetches objects", denied: { "upload-pack": "runs a program of the caller's choosing (--upload-pack)", exec: "runs a program of the caller's choosing (--exec)" }, notable: {}, shortWithValue: "" },
  "send-pack": { summary: "pushes objects", denied: { "receive-pack": "runs a program of the caller's choosing (--receive-pack)", exec: "runs a program of the caller's choosing (--exec)" }, notable: {}, shortWithValue: "" },
  "filter-branch": {
    summary: "rewrites history with shell filters",
    denied: {
      "env-filter": "runs a shell filter", "tree-filter": "runs a shell filter", "index-filter": "runs a shell filter", "parent-filter": "runs a shell filter",
      "msg-filter": "runs a shell filter", "commit-filter": "runs a shell filter", "tag-name-filter": "runs a shell filter",
    },
    notable: { force: FORCE, f: FORCE },
    shortWithValue: "d",
  },
  rm: { summary: "removes files", denied: {}, notable: { force: "removes files with local changes (--force)", f: "removes files with local changes (-f)", r: "removes recursively (-r)" }, shortWithValue: "" },
  mv: { summary: "moves files", denied: {}, notable: { force: FORCE, f: FORCE }, shortWithValue: "" },
  add: { summary: "stages changes", denied: {}, notable: { force: "stages ignored files (--force)", f: "stages ignored files (-f)" }, shortWithValue: "" },
  worktree: { summary: "changes worktrees", denied: {}, notable: { force: "removes or overwrites a worktree with changes (--force)", f: "forces the operation (-f)" }, shortWithValue: "bB" },
  "update-ref": { summary: "rewrites refs", denied: {}, notable: { d: "deletes a ref (-d)" }, shortWithValue: "m" },
  gc: { summary: "deletes unreachable objects", denied: {}, notable: { prune: "prunes unreachable objects (--prune)" }, shortWithValue: "" },
  submodule: { summary: "changes submodules", denied: {}, notable: { force: FORCE, f: FORCE }, shortWithValue: "" },
};

/**
 * Config keys whose value is a program git runs, or a file git reads config from (an include), matched by
 * pattern on the lower-cased key. Used for `-c`, `--config-env`, config writes and the repository check.
 */
export const EXECUTABLE_CONFIG: Array<{ pattern: RegExp; what: string }> = [
  { pattern: /^core\.fsmonitor$/, what: "runs a program on every status, diff and other index refresh" },
  { pattern: /^core\.pager$/, what: "names the pager program" },
  { pattern: /^pager\..+$/, what: "names a pager program for one command" },
  { pattern: /^core\.editor$/, what: "names the editor program" },
  { pattern: /^sequence\.editor$/, what: "names the editor program" },
  { pattern: /^core\.sshcommand$/, what: "names the ssh program" },
  { pattern: /^core\.gitproxy$/, what: "names a proxy program" },
  { pattern: /^core\.askpass$/, what: "names a password program" },
  { pattern: /^core\.hookspath$/, what: "points hooks at another directory" },
  { pattern: /^core\.alternaterefscommand$/, what: "names a program" },
  { pattern: /^diff\.external$/, what: "names the external diff program" },
  { pattern: /^diff\..+\.(command|textconv)$/, what: "names a diff or textconv program" },
  { pattern: /^filter\..+\.(clean|smudge|process)$/, what: "names a clean/smudge filter program" },
  { pattern: /^merge\..+\.driver$/, what: "names a merge driver program" },
  { pattern: /^gpg(\..+)?\.program$/, what: "names the signature program" },
  { pattern: /^credential(\..+)?\.helper$/, what: "names a credential helper program" },
  { pattern: /^remote\..+\.(uploadpack|receivepack|vcs|proxy)$/, what: "names a program run for this remote" },
  { pattern: /^alias\..+$/, what: "defines a git alias (a `!` alias runs a shell command)" },
  { pattern: /^include\.path$/, what: "includes another config file" },
  { pattern: /^includeif\..+\.path$/, what: "includes another config file" },
  { pattern: /^uploadpack\.packobjectshook$/, what: "names a program" },
  { pattern: /^web\.browser$/, what: "names a browser program" },
  { pattern: /^browser\..+\.(cmd|path)$/, what: "names a browser program" },
  { pattern: /^man\..+\.(cmd|path)$/, what: "names a man viewer program" },
  { pattern: /^difftool\..+\.(cmd|path)$/, what: "names a diff tool program" },
  { pattern: /^mergetool\..+\.(cmd|path)$/, what: "names a merge tool program" },
  { pattern: /^interactive\.difffilter$/, what: "names a filter program" },
  { pattern: /^ssh\.variant$/, what: "changes how the ssh program is called" },
  { pattern: /^protocol\..*allow$/, what: "allows transports such as ext::, which run commands" },
  { pattern: /^core\.worktree$/, what: "points the work tree at another directory" },
  { pattern: /^sendemail\..*(smtpserver|tocmd|cccmd|headercmd)$/, what: "names a program" },
];

/** The executable-config description of a key, or `undefined` when the key names no program or file. */
export function executableConfig(key: string): string | undefined {
  const lower = key.toLowerCase();
  // Section and key names are case-insensitive; a subsection keeps its case but the pattern does not care.
  return EXECUTABLE_CONFIG.find((e) => e.pattern.test(lower))?.what;
}

/** Config keys a `-c` may set without `ask`: output formatting only. */
export function harmlessConfig(key: string): boolean {
  const lower = key.toLowerCase();
  return (
    /^color\.[a-z.]+$/.test(lower) ||
    /^core\.(quotepath|abbrev|commentchar)$/.test(lower) ||
    /^log\.(date|decorate|abbrevcommit|follow|showroot|mailmap)$/.test(lower) ||
    /^diff\.(renames|renamelimit|algorithm|noprefix|mnemonicprefix|relative|context|interhunkcontext|indentheuristic|colormoved|suppressblankempty)$/.test(lower) ||
    /^status\.(short|branch|showuntrackedfiles|renames|relativepaths|showstash|aheadbehind)$/.test(lower) ||
    /^(format\.pretty|i18n\.logoutputencoding|grep\.(linenumber|column|patterntype|extendedregexp|fullname)|advice\..+|column\.ui)$/.test(lower)
  );
}

/** Settings a read command can run, whatever the command line: index refresh, pager, diff and filter drivers. */
export const READ_RELEVANT_CONFIG: readonly RegExp[] = [
  /^core\.fsmonitor$/,
  /^core\.pager$/,
  /^pager\..+$/,
  /^diff\.external$/,
  /^diff\..+\.(command|textconv)$/,
  /^filter\..+\.(clean|smudge|process)$/,
  /^gpg(\..+)?\.program$/,
];

/** Settings that matter only when a read fetches missing objects: in a partial clone it does, lazily. */
export const LAZY_FETCH_CONFIG: readonly RegExp[] = [
  /^core\.sshcommand$/,
  /^core\.gitproxy$/,
  /^core\.askpass$/,
  /^credential(\..+)?\.helper$/,
  /^remote\..+\.(uploadpack|vcs|proxy)$/,
  /^ssh\.variant$/,
  /^protocol\..*allow$/,
];

/** Whether a setting's value turns its program off (an empty command, `core.fsmonitor=false`, a `cat` pager). */
export function settingDisabled(key: string, value: string): boolean {
  const lower = key.toLowerCase();
  const v = value.trim();
  if (lower === "core.fsmonitor") return /^(false|no|off|0|)$/i.test(v);
  if (lower === "core.pager" || lower.startsWith("pager.")) return v === "cat" || /^(true|false|yes|no|on|off|1|0|)$/i.test(v);
  return v === "";
}

/** Whether config entries (lower-cased keys) make the repository a partial clone, whose reads may fetch. */
export function isPartialClone(entries: ReadonlyArray<{ key: string; value: string }>): boolean {
  return entries.some(
    (e) => e.key === "extensions.partialclone" || (/^remote\..+\.promisor$/.test(e.key) && /^(true|yes|on|1)$/i.test(e.value)),
  );
}

/**
 * Whether gitctx reports a repository setting as neutralised: one that names a program a read could run (the
 * read-relevant list), the hooks directory, or a program a fetch could run (the lazy-fetch list, credential
 * helpers excepted: they are ordinary user convenience and gitctx never fetches). gitctx overrides every one of
 * them on every git process it starts.
 */
export function neutralisedSetting(key: string, value: string): boolean {
  const lower = key.toLowerCase();
  // An ext:: URL is a command line: git runs it to "connect" (gitctx allows no protocol at all).
  if (/^remote\..+\.(url|pushurl)$/.test(lower)) return /^ext::/i.test(value.trim());
  if (executableConfig(lower) === undefined || settingDisabled(lower, value)) return false;
  if (READ_RELEVANT_CONFIG.some((p) => p.test(lower)) || lower === "core.hookspath") return true;
  return !lower.startsWith("credential") && LAZY_FETCH_CONFIG.some((p) => p.test(lower));
}

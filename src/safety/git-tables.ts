/**
 * What git accepts before and after each subcommand the classifier knows, as option tables, and what every
 * config key that names a program or a file can make git do. Options not listed here are unknown to the
 * classifier and make a command `ask`, never `allow`.
 *
 * Versions: the tables model git 2.39 (the oldest git gitctx supports, from its builtin/*.c option arrays and
 * Documentation/) and the current release, 2.55 (from the same files at v2.55.0). An entry that exists in only
 * one of them says so (`since 2.x`); where the two differ in meaning, the stricter reading is taken.
 */
import { ask, deny, mark, merge, mode, plain, table, type OptionTable } from "./options.js";

/** The one reason for every way a read verifies signatures: `tag -v`, `verify-commit`, `--show-signature`, `%G?`. */
export const VERIFIES_SIGNATURES =
  "verifies signatures by running gpg (or the program gpg.program names), which reads your keyring outside the repository and may fetch keys";

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
export const LOG_OPTIONS: OptionTable = plain(mark(merge(DIFF_OPTIONS, REVISION_OPTIONS), ["show-signature"], ask(VERIFIES_SIGNATURES)), [
  "n",
  "skip",
  "since",
  "after",
  "until",
  "before",
  "max-age",
  "min-age",
  "author",
  "committer",
  "grep-reflog",
  "grep",
  "min-parents",
  "max-parents",
  "glob",
  "exclude",
  "decorate-refs",
  "decorate-refs-exclude",
  "date",
  "U",
  "S",
  "G",
  "diff-filter",
  "I",
  "word-diff-regex",
  "find-object",
  "inter-hunk-context",
  "src-prefix",
  "dst-prefix",
  "line-prefix",
]);

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
        merge(
          DIFF_OPTIONS,
          table(`
  incremental b root show-stats progress score-debug f|show-name n|show-number p|porcelain line-porcelain c t l s
  e|show-email w ignore-rev= ignore-revs-file= color-lines color-by-age minimal S= contents= C=? M=? L= abbrev=?
  textconv no-textconv no-ignore-revs-file since= date= first-parent reverse encoding= no-abbrev
`),
        ),
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
  t = mark(t, ["verify"], ask(VERIFIES_SIGNATURES));
  t = mark(t, ["annotate", "message", "file", "edit", "sign", "cleanup", "local-user", "create-reflog"], mode("create"));
  return t;
})();

export const MERGE_BASE_OPTIONS: OptionTable = table("a|all octopus independent is-ancestor fork-point");

export const DESCRIBE_OPTIONS: OptionTable = table(`
  contains debug all tags long first-parent abbrev=? exact-match candidates= match= exclude= always dirty=? broken=?
`);

export const LS_FILES_OPTIONS: OptionTable = plain(
  mark(
    mark(
      table(`
  c|cached d|deleted m|modified o|others i|ignored s|stage k|killed directory eol no-empty-directory
  empty-directory u|unmerged resolve-undo x|exclude= X|exclude-from= exclude-per-directory= exclude-standard
  full-name recurse-submodules error-unmatch with-tree= abbrev=? debug deduplicate sparse format= z t v f
`),
      ["exclude-from"],
      deny("reads an exclude file from any path on disk (--exclude-from)"),
    ),
    // The name is joined to every directory: `--exclude-per-directory=../../../etc/passwd` reads outside.
    ["exclude-per-directory"],
    ask("reads the exclude file named by the caller in every directory, and a name with `..` climbs out (--exclude-per-directory)"),
  ),
  ["x", "with-tree"],
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
  return plain(t, ["e", "max-depth", "A", "B", "C", "m", "threads"]);
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
  return plain(t, ["default"]);
})();

export const SHOW_REF_OPTIONS: OptionTable = table("head tags heads d|dereference s|hash=? abbrev=? q|quiet verify exclude-existing=?");

export const NAME_REV_OPTIONS: OptionTable = table("name-only tags refs= exclude= all annotate-stdin stdin no-undefined always");

export const CHECK_IGNORE_OPTIONS: OptionTable = table("q|quiet v|verbose n|non-matching no-index z stdin");

export const COUNT_OBJECTS_OPTIONS: OptionTable = table("v|verbose H|human-readable");

export const CHERRY_OPTIONS: OptionTable = table("v abbrev=?");

export const DIFF_TREE_OPTIONS: OptionTable = merge(LOG_OPTIONS, table("stdin no-commit-id always merge-base v"));

/** builtin/symbolic-ref.c (2.39 and 2.55; `--recurse` since 2.39): reads with one name, writes with two or -d. */
export const SYMBOLIC_REF_OPTIONS: OptionTable = mark(
  mark(table("q|quiet d|delete short recurse m="), ["delete"], mode("write")),
  ["m"],
  mode("write"),
);

/** builtin/show-branch.c (2.39 and 2.55; `--more` is OPT_CALLBACK with an optional value). */
export const SHOW_BRANCH_OPTIONS: OptionTable = table(`
  a|all r|remotes color=? no-color list no-name current sha1-name merge-base independent topo-order topics sparse
  date-order g|reflog=? more=?
`);

/** builtin/notes.c `list` and `show` take no option of their own; `--ref` comes before the verb. */
export const NOTES_OPTIONS: OptionTable = plain(table("ref="), ["ref"]);
export const NOTES_VERB_OPTIONS: OptionTable = table("");

/** builtin/range-diff.c (2.39; 2.55 adds --diff-merges, --remerge-diff, --max-memory): its own options plus diff options. */
export const RANGE_DIFF_OPTIONS: OptionTable = merge(
  DIFF_OPTIONS,
  table("creation-factor= no-dual-color dual-color notes=? no-notes left-only right-only diff-merges= remerge-diff max-memory="),
);

/** git-submodule.sh (2.39) and builtin/submodule.c (2.55) `status`: -q, --cached, --recursive. */
export const SUBMODULE_STATUS_OPTIONS: OptionTable = table("q|quiet cached recursive");

/** The names `git var` prints (builtin/var.c; GIT_SHELL_PATH, GIT_ATTR_*, GIT_CONFIG_* since 2.42). */
export const VAR_NAMES: ReadonlySet<string> = new Set([
  "GIT_AUTHOR_IDENT",
  "GIT_COMMITTER_IDENT",
  "GIT_EDITOR",
  "GIT_SEQUENCE_EDITOR",
  "GIT_PAGER",
  "GIT_DEFAULT_BRANCH",
  "GIT_SHELL_PATH",
  "GIT_ATTR_SYSTEM",
  "GIT_ATTR_GLOBAL",
  "GIT_CONFIG_SYSTEM",
  "GIT_CONFIG_GLOBAL",
]);

/**
 * `git config <verb>` (since 2.46; 2.39 reads `get` and `list` as key names and fails without writing). Read
 * verbs and their options; the write verbs (set, unset, rename-section, remove-section, edit) are mutations.
 */
export const CONFIG_GET_OPTIONS: OptionTable = plain(
  table(`
  global system local worktree f|file= blob= includes no-includes t|type= bool int bool-or-int bool-or-str path
  expiry-date z|null name-only show-origin show-scope show-names all regexp value= fixed-value url= default=
`),
  ["default", "value", "url", "blob"],
);
export const CONFIG_VERB_OPTIONS: OptionTable = mark(CONFIG_GET_OPTIONS, ["file"], deny("reads or writes a config file anywhere on disk (--file)"));
export const CONFIG_READ_VERBS: ReadonlySet<string> = new Set(["get", "list"]);
export const CONFIG_WRITE_VERBS: ReadonlySet<string> = new Set(["set", "unset", "rename-section", "remove-section", "edit"]);

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
    notable: {
      "no-verify": "skips the commit hooks (--no-verify)",
      n: "skips the commit hooks (-n/--no-verify)",
      amend: "rewrites the last commit (--amend)",
    },
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
    notable: {
      force: "discards local changes (--force)",
      f: "discards local changes (-f)",
      "discard-changes": "discards local changes",
      C: "resets an existing branch (-C)",
    },
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
    denied: {
      output: WRITES_FILE,
      "output-directory": "writes patch files to a directory of the caller's choosing (--output-directory)",
      o: "writes patch files to a directory of the caller's choosing (-o)",
    },
    notable: {},
    shortWithValue: "ov",
  },
  difftool: {
    summary: "runs a diff tool",
    denied: { extcmd: "runs a command of the caller's choosing (--extcmd)", x: "runs a command of the caller's choosing (-x)" },
    notable: {},
    shortWithValue: "tx",
  },
  "fetch-pack": {
    summary: "fetches objects",
    denied: { "upload-pack": "runs a program of the caller's choosing (--upload-pack)", exec: "runs a program of the caller's choosing (--exec)" },
    notable: {},
    shortWithValue: "",
  },
  "send-pack": {
    summary: "pushes objects",
    denied: { "receive-pack": "runs a program of the caller's choosing (--receive-pack)", exec: "runs a program of the caller's choosing (--exec)" },
    notable: {},
    shortWithValue: "",
  },
  "filter-branch": {
    summary: "rewrites history with shell filters",
    denied: {
      "env-filter": "runs a shell filter",
      "tree-filter": "runs a shell filter",
      "index-filter": "runs a shell filter",
      "parent-filter": "runs a shell filter",
      "msg-filter": "runs a shell filter",
      "commit-filter": "runs a shell filter",
      "tag-name-filter": "runs a shell filter",
    },
    notable: { force: FORCE, f: FORCE },
    shortWithValue: "d",
  },
  rm: {
    summary: "removes files",
    denied: {},
    notable: { force: "removes files with local changes (--force)", f: "removes files with local changes (-f)", r: "removes recursively (-r)" },
    shortWithValue: "",
  },
  mv: { summary: "moves files", denied: {}, notable: { force: FORCE, f: FORCE }, shortWithValue: "" },
  add: {
    summary: "stages changes",
    denied: {},
    notable: { force: "stages ignored files (--force)", f: "stages ignored files (-f)" },
    shortWithValue: "",
  },
  worktree: {
    summary: "changes worktrees",
    denied: {},
    notable: { force: "removes or overwrites a worktree with changes (--force)", f: "forces the operation (-f)" },
    shortWithValue: "bB",
  },
  "update-ref": { summary: "rewrites refs", denied: {}, notable: { d: "deletes a ref (-d)" }, shortWithValue: "m" },
  gc: { summary: "deletes unreachable objects", denied: {}, notable: { prune: "prunes unreachable objects (--prune)" }, shortWithValue: "" },
  submodule: { summary: "changes submodules", denied: {}, notable: { force: FORCE, f: FORCE }, shortWithValue: "" },
};

// ---------------------------------------------------------------------------------------------------------
// Config keys that name a program or a file, and what makes git use each.

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
  { pattern: /^merge\..+\.driver$/, kind: "program", fires: ["merge"], what: "runs a merge driver program" },
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
 */
export function settingDisabled(key: string, value: string | null, where: SettingSource = "repository"): boolean {
  const lower = lowerKey(key);
  const rule = configKeyRule(lower);
  if (rule === undefined) return true;
  const v = value === null ? null : value.trim();
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
  if (/^(format\.pretty|pretty\..+)$/.test(lower)) return v === null || !v.includes("%G");
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
];

/** Keys whose rule a read can fire: the repository check lists these (and classify.ts decides per read). */
export const READ_RELEVANT_CONFIG: readonly RegExp[] = CONFIG_KEYS.filter(
  (rule) => rule.what !== "" && rule.fires.some((t) => READ_TRIGGERS.includes(t) && t !== "objects"),
).map((rule) => rule.pattern);

/** Settings that matter only when a read fetches missing objects: in a partial clone it does, lazily. */
export const LAZY_FETCH_CONFIG: readonly RegExp[] = CONFIG_KEYS.filter((rule) => rule.fires.includes("network")).map((rule) => rule.pattern);

/**
 * The program-naming keys gitctx's own runner overrides on every git process it starts (src/git/hardening.ts:
 * `-c core.fsmonitor=false`, `core.hooksPath=/dev/null`, `core.pager=cat` and `--no-pager` for pager.<cmd>,
 * `diff.external=` and `--no-ext-diff --no-textconv`, emptied filter drivers, `gpg.*.program=false`,
 * `core.sshCommand=false`, `protocol.allow=never` for every transport and ext:: URL). A test checks each against
 * the runner's own arguments. Credential helpers and other keys the runner also switches off are left out of the
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

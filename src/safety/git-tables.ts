/**
 * What git accepts before and after each subcommand the classifier knows, as option tables (what config keys can
 * make git do is in config-keys.ts). Options not listed here are unknown to the classifier and make a command
 * `ask`, never `allow`.
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

/**
 * The hardening recipe of DESIGN.md as pure data: the environment and the arguments that keep a git process
 * from running anything a repository's config names, and that make its output independent of anyone's
 * formatting config. Verified against git 2.39; every line here closes a vector the security tests exercise.
 */
import { LFS_DRIVER } from "./lfs.js";

export interface HardenedEnvOptions {
  /** Directory containing the git binary; it must stay reachable on PATH for git's own helpers. */
  gitDir: string;
  /** An empty private directory used as HOME, so no user config, credentials or attributes are read. */
  home: string;
  /** Names of every `filter.<name>` defined in the repository's config (after includes). */
  filterDrivers?: readonly string[];
  /** Diff drivers whose hunk-header pattern could make git's matching run away: given git's default rule instead. */
  hunkHeaderDrivers?: readonly string[];
  /**
   * The command that runs gitctx's own LFS filter (see lfs-filter.ts): when set, the `lfs` driver runs it as its
   * process filter instead of being switched off, whether or not the repository's config defines the driver.
   */
  lfsFilter?: string;
  /** A private index file (`GIT_INDEX_FILE`), so that whatever git writes back lands there. */
  indexFile?: string;
  /** The user's own settings carried over (line endings, excludes...): never one that names a program. */
  carried?: ReadonlyArray<readonly [key: string, value: string]>;
  /** Further settings for this process, after the filter overrides (the pinned settings still win over both). */
  config?: ReadonlyArray<readonly [string, string]>;
  /** Allow the `file` transport (and no other) instead of none: a clone from a local path, never the network. */
  allowFileTransport?: boolean;
  /** A bare repository: git's own default mailmap there, the committed `HEAD:.mailmap`, is kept. */
  bare?: boolean;
  /**
   * The caller's time zone (`TZ`), so that a date without one (`since: "2024-01-31 18:00"`, `"yesterday"`) means
   * what it means to the user's git. Output is not touched: every date gitctx asks for carries its own offset.
   */
  timeZone?: string;
}

const SYSTEM_PATH = ["/usr/local/bin", "/usr/bin", "/bin"];

/** A fresh environment: nothing inherited, so no `GIT_*` variable of the caller can reach git. */
export function hardenedEnv(options: HardenedEnvOptions): Record<string, string> {
  const path = SYSTEM_PATH.includes(options.gitDir) ? SYSTEM_PATH : [options.gitDir, ...SYSTEM_PATH];
  const env: Record<string, string> = {
    PATH: path.join(":"),
    HOME: options.home,
    // English messages (gitctx reads some of git's), and characters as a user's UTF-8 locale has them: `grep` and
    // `author` then match "É" case-insensitively and `.` matches a character, not a byte. A system without a
    // C.UTF-8 locale leaves git in C.
    LC_ALL: "C.UTF-8",
    GIT_CONFIG_NOSYSTEM: "1",
    GIT_CONFIG_GLOBAL: "/dev/null",
    GIT_ATTR_NOSYSTEM: "1",
    GIT_TERMINAL_PROMPT: "0",
    GIT_OPTIONAL_LOCKS: "0",
    GIT_PAGER: "cat",
    PAGER: "cat",
    GIT_NO_LAZY_FETCH: "1",
    GIT_ALLOW_PROTOCOL: options.allowFileTransport === true ? "file" : "none",
    GIT_PROTOCOL_FROM_USER: "0",
    GIT_NO_REPLACE_OBJECTS: "1",
    GIT_SSH_COMMAND: "false",
    GIT_ASKPASS: "false",
    SSH_ASKPASS: "false",
    GIT_EDITOR: "false",
    // Caller paths are always literal: no globs, no `:(top)` or other pathspec magic.
    GIT_LITERAL_PATHSPECS: "1",
  };
  if (options.indexFile !== undefined) env.GIT_INDEX_FILE = options.indexFile;
  if (options.timeZone !== undefined) env.TZ = options.timeZone;
  // The pinned settings below, exactly as git passes its own `-c` arguments to the processes it starts: the same
  // "command" scope, read after GIT_CONFIG_COUNT, so they win over every override that follows. As ~50 `-c`
  // arguments they cost each process about 0.1 ms more (Node copies each, git re-quotes and appends each to
  // this variable in turn): a third of gitctx's whole overhead on a small `git status`.
  env.GIT_CONFIG_PARAMETERS = COMMAND_PARAMETERS;
  // A driver name may contain `=`, which `-c name=value` cannot express; GIT_CONFIG_KEY_n can.
  // A mailmap file named by config can be any file on disk (its text would appear as authors), a blob any
  // revision (`:/<regex>` searches every message): neither is the repository's to name. The work tree's own
  // .mailmap still applies (git refuses it as a symlink), and in a bare repository git's default, the committed
  // one; a file of the user's own config comes with the carried settings below, which win over these.
  const overrides: Array<[string, string]> = [
    ["mailmap.file", ""],
    ["mailmap.blob", options.bare === true ? "HEAD:.mailmap" : ""],
  ];
  const drivers = new Set(options.filterDrivers ?? []);
  if (options.lfsFilter !== undefined) drivers.add(LFS_DRIVER);
  for (const name of drivers) {
    if (name === LFS_DRIVER && options.lfsFilter !== undefined) {
      // `process` wins over `clean` and `smudge`, emptied anyway; required, so a filter that fails fails the call
      // rather than letting git compare raw bytes with pointers.
      overrides.push(
        [`filter.${name}.clean`, ""],
        [`filter.${name}.smudge`, ""],
        [`filter.${name}.process`, options.lfsFilter],
        [`filter.${name}.required`, "true"],
      );
      continue;
    }
    overrides.push([`filter.${name}.clean`, ""], [`filter.${name}.smudge`, ""], [`filter.${name}.process`, ""], [`filter.${name}.required`, "false"]);
  }
  // The last setting of a driver's pattern wins, funcname or xfuncname alike: this one comes after the repository's.
  for (const name of options.hunkHeaderDrivers ?? []) overrides.push([`diff.${name}.xfuncname`, DEFAULT_HUNK_HEADER]);
  for (const [key, value] of options.carried ?? []) overrides.push([key, value]);
  for (const [key, value] of options.config ?? []) overrides.push([key, value]);
  if (overrides.length > 0) {
    env.GIT_CONFIG_COUNT = String(overrides.length);
    overrides.forEach(([key, value], i) => {
      env[`GIT_CONFIG_KEY_${i}`] = key;
      env[`GIT_CONFIG_VALUE_${i}`] = value;
    });
  }
  return env;
}

/**
 * git's own rule for a hunk header's function line when a file has no diff driver (xdiff-interface.c `def_ff`: a
 * line that starts with a letter, `_` or `$`), as a pattern: what a neutralised driver's files get. An empty
 * pattern would be no better: git 2.39 then shows no function line at all.
 */
export const DEFAULT_HUNK_HEADER = "^[[:alpha:]_$].*";

/** Settings that disable every program a repository's config can name. */
const SAFETY_CONFIG = [
  "core.fsmonitor=false",
  "core.hooksPath=/dev/null",
  "core.pager=cat",
  "log.showSignature=false",
  "gpg.program=false",
  "gpg.openpgp.program=false",
  "gpg.ssh.program=false",
  "gpg.x509.program=false",
  "safe.bareRepository=explicit",
  "protocol.allow=never",
  "core.sshCommand=false",
  "credential.helper=",
  "submodule.recurse=false",
];

/**
 * Settings that pin output formats a repository could otherwise change and that have no command-line flag on
 * every subcommand we run (flags are added per subcommand where they exist). What only changes the answer itself,
 * as the user's git gives it, is left to the repository's config and the user's (carried, see user-config.ts):
 * the diff algorithm and its indent heuristic, hunks merged across `diff.interHunkContext` lines, `log.follow`,
 * `log.showRoot`, `log.mailmap` (the names printed follow it: Repository.logMailmap), `core.abbrev`, the rename
 * limits, which submodule changes are ignored (`submodule.<name>.ignore`, `diff.ignoreSubmodules`). None of them
 * names a program or a file, and the parsers read every value.
 */
const FORMAT_CONFIG = [
  // A specific colour setting (color.status=always) wins over color.ui, so each is pinned.
  "color.ui=false",
  "color.status=false",
  "color.diff=false",
  "color.branch=false",
  "color.grep=false",
  "core.quotePath=false",
  "diff.noprefix=false",
  "diff.mnemonicPrefix=false",
  "diff.relative=false",
  "diff.renames=true",
  "diff.external=",
  "diff.suppressBlankEmpty=false",
  "status.relativePaths=false",
  "status.renames=true",
  "status.showStash=false",
  "status.displayCommentPrefix=false",
  "status.submoduleSummary=false",
  "advice.statusHints=true",
  "core.commentChar=#",
  "log.decorate=false",
  "log.abbrevCommit=false",
  "i18n.logOutputEncoding=UTF-8",
  "core.untrackedCache=false",
  // A private index copy written back (see Repository) must not create sharedindex files in the repository.
  "core.splitIndex=false",
];

/** Every pinned setting, as `[key, value]`: what `hardenedEnv` hands git as command-line config. */
export const COMMAND_SETTINGS: ReadonlyArray<readonly [key: string, value: string]> = [...SAFETY_CONFIG, ...FORMAT_CONFIG].map((setting) => {
  const eq = setting.indexOf("=");
  return [setting.slice(0, eq), setting.slice(eq + 1)] as const;
});

/** git's own quoting in GIT_CONFIG_PARAMETERS (quote.c `sq_quote_buf`): `'...'`, with `'` as `'\''`. */
const sq = (text: string): string => `'${text.replaceAll("'", "'\\''")}'`;

/** `'key'='value'` pairs (the form of git 2.31 and later, where a key may hold `=`), separated by spaces. */
const COMMAND_PARAMETERS = COMMAND_SETTINGS.map(([key, value]) => `${sq(key)}=${sq(value)}`).join(" ");

/** Arguments placed before the subcommand. */
export function globalArgs(gitDir: string, workTree: string | undefined): string[] {
  const args = ["--no-pager", `--git-dir=${gitDir}`];
  if (workTree !== undefined) args.push(`--work-tree=${workTree}`);
  return args;
}

/** Arguments placed right after the subcommand, per subcommand. */
export function subcommandArgs(subcommand: string): string[] {
  switch (subcommand) {
    case "diff":
    case "log":
    case "show":
      // `-O/dev/null` overrides a `diff.orderFile` that could point anywhere on disk.
      return ["--no-ext-diff", "--no-textconv", "--no-color", "-O/dev/null"];
    case "blame":
      // `blame --no-color` is ambiguous and `status` has no such flag: `color.ui=false` covers both.
      // The files blame.ignoreRevsFile names are read by gitctx, which passes a checked copy (see ignore-revs.ts).
      return ["--no-textconv", "--no-ignore-revs-file"];
    default:
      return [];
  }
}

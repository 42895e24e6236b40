/**
 * Which untracked files a snapshot names. A listing meant for a model's context is capped, and it leaves out by
 * name the files that look like secrets (their names alone can say too much, and naming them invites reading
 * them) and files too large to be source: those are counted, each with its reason.
 */
import { lstat } from "node:fs/promises";
import { join } from "node:path";

export const UNTRACKED_LIMIT = 100;
/** A directory holding this many untracked files (at any depth) is one line with a count, not a list of names. */
export const COLLAPSE_AT = 10;
export const LARGE_FILE_BYTES = 1024 * 1024;
/** Beyond this many size checks, files are no longer examined but counted as "more". */
const MAX_SIZE_CHECKS = 10 * UNTRACKED_LIMIT;

export interface HiddenFiles {
  /** Why these files are counted rather than named, phrased to follow the count ("2 larger than 1 MiB"). */
  reason: string;
  count: number;
}

/** A directory whose untracked files are counted rather than named. */
export interface UntrackedDirectory {
  /** `/`-terminated, relative like the files. */
  path: string;
  /** Untracked files below it (at any depth), except those counted in `hidden`. */
  files: number;
}

export interface UntrackedFiles {
  /** Every untracked (and not ignored) file. */
  total: number;
  /** The files named, in git's (path) order; with `directories`, at most `UNTRACKED_LIMIT` lines in all. */
  files: string[];
  /** Directories holding at least {@link COLLAPSE_AT} untracked files, each counted on one line, in path order. */
  directories: UntrackedDirectory[];
  /** Files counted, not named, with the reason, for each reason that applies. */
  hidden: HiddenFiles[];
  /** Files neither named, nor in a directory line, nor hidden, because the list is full. */
  more: number;
}

interface SensitiveRule {
  reason: string;
  test(name: string, segments: readonly string[]): boolean;
}

/** Word-like match of a name part: `api-token.txt`, `tokens.json`, `.token`; not `tokenizer.ts`. */
function word(pattern: string): RegExp {
  return new RegExp(`(^|[._-])${pattern}([._-]|$)`, "i");
}

const SECRET_WORDS = [word("credentials?"), word("secrets?"), word("tokens?"), word("passwords?")];
/**
 * Data-like names only: no extension, or one that holds data or settings. `tokens.ts` or `secret-scanner.py`
 * is source code about the subject, and is named like any other file.
 */
const DATA_FILE = /^[^.]*$|^\.[^.]+$|\.(json|txt|ya?ml|toml|ini|cfg|conf|config|properties|xml|csv|dat|db|sqlite|plist|bak|old|backup)$/i;

const SENSITIVE_RULES: readonly SensitiveRule[] = [
  {
    reason: "with a sensitive-looking name (environment file: .env*)",
    test: (name) => /^\.env/i.test(name) || /\.env$/i.test(name),
  },
  {
    reason: "with a sensitive-looking name (private key or certificate: *.pem, *.key, id_rsa...)",
    test: (name, segments) =>
      /\.(pem|key|p8|p12|pfx|jks|keystore|ppk)$/i.test(name) ||
      /^id_(rsa|dsa|ecdsa|ed25519)(_sk)?$/i.test(name) ||
      segments.some((segment) => segment === ".ssh" || segment === ".gnupg"),
  },
  {
    reason: "with a sensitive-looking name (credentials, secret, token or password file)",
    test: (name) =>
      (DATA_FILE.test(name) && SECRET_WORDS.some((pattern) => pattern.test(name))) ||
      /^\.(netrc|npmrc|pypirc|htpasswd|git-credentials|pgpass)$/i.test(name),
  },
];

/** The reason a path looks sensitive, or `undefined`. Pure: decided by the name alone. */
export function sensitiveReason(path: string): string | undefined {
  const segments = path.split("/").filter((segment) => segment !== "");
  const name = segments.at(-1) ?? "";
  return SENSITIVE_RULES.find((rule) => rule.test(name, segments.slice(0, -1)))?.reason;
}

export function largeReason(limitBytes: number): string {
  return `larger than ${formatBytes(limitBytes)}`;
}

export function formatBytes(bytes: number): string {
  if (bytes >= 1024 * 1024 && bytes % (1024 * 1024) === 0) return `${bytes / (1024 * 1024)} MiB`;
  if (bytes >= 1024 && bytes % 1024 === 0) return `${bytes / 1024} KiB`;
  return `${bytes} bytes`;
}

/**
 * Sorts untracked paths (relative to `base` on disk, `/`-separated) into named, hidden and more. Sizes are read
 * only while the list is filling, so a huge untracked tree costs at most a bounded number of `lstat` calls.
 */
export async function summariseUntracked(
  paths: readonly string[],
  base: string,
  options: { limit?: number; largeFileBytes?: number } = {},
): Promise<UntrackedFiles> {
  const limit = options.limit ?? UNTRACKED_LIMIT;
  const largeBytes = options.largeFileBytes ?? LARGE_FILE_BYTES;
  const hidden = new Map<string, number>();
  const hide = (reason: string, count = 1): void => {
    hidden.set(reason, (hidden.get(reason) ?? 0) + count);
  };
  const candidates: string[] = [];
  for (const path of paths) {
    const sensitive = sensitiveReason(path);
    if (sensitive === undefined) candidates.push(path);
    else hide(sensitive);
  }
  // A directory with many untracked files is one line: its shallowest such ancestor, narrowed to the deepest
  // directory that still holds all of them (build/ with everything in build/out/ reads as build/out/).
  const perDirectory = new Map<string, number>();
  for (const path of candidates) for (const dir of ancestors(path)) perDirectory.set(dir, (perDirectory.get(dir) ?? 0) + 1);
  const groups = new Map<string, string[]>();
  const lines: Array<{ file: string } | { group: string }> = [];
  for (const path of candidates) {
    const group = ancestors(path).find((dir) => perDirectory.get(dir)! >= COLLAPSE_AT);
    if (group === undefined) {
      lines.push({ file: path });
      continue;
    }
    if (!groups.has(group)) {
      groups.set(group, []);
      lines.push({ group });
    }
    groups.get(group)!.push(path);
  }
  const files: string[] = [];
  const directories: UntrackedDirectory[] = [];
  let examined = 0;
  let listed = 0;
  let more = 0;
  // Sizes in parallel batches, in order, until the list is full or the checks run out.
  while (examined < lines.length) {
    const room = limit - files.length - directories.length;
    const checks = MAX_SIZE_CHECKS - listed;
    if (room <= 0 || checks <= 0) break;
    const batch = lines.slice(examined, examined + Math.min(room, checks));
    examined += batch.length;
    const sizes = await Promise.all(
      batch.map((line) =>
        "group" in line
          ? 0
          : lstat(join(base, line.file)).then(
              (info) => (info.isFile() ? info.size : 0),
              () => 0,
            ),
      ),
    );
    batch.forEach((line, i) => {
      if ("group" in line) {
        const members = groups.get(line.group)!;
        directories.push({ path: commonDirectory(members), files: members.length });
      } else if (sizes[i]! > largeBytes) {
        hide(largeReason(largeBytes));
        listed++;
      } else {
        files.push(line.file);
        listed++;
      }
    });
  }
  for (const line of lines.slice(examined)) more += "group" in line ? groups.get(line.group)!.length : 1;
  // Sensitive reasons first, in rule order, then the size reason.
  const order = [...SENSITIVE_RULES.map((rule) => rule.reason), largeReason(largeBytes)];
  return {
    total: paths.length,
    files,
    directories,
    hidden: order.filter((reason) => hidden.has(reason)).map((reason) => ({ reason, count: hidden.get(reason)! })),
    more,
  };
}

/** The directories above a path, shallowest first, each `/`-terminated: `a/b/c.txt` gives `a/`, `a/b/`. */
function ancestors(path: string): string[] {
  const parts = path.split("/");
  const dirs: string[] = [];
  for (let i = 1; i < parts.length; i++) dirs.push(`${parts.slice(0, i).join("/")}/`);
  return dirs;
}

/** The deepest directory holding every path (all share at least their group's directory). */
function commonDirectory(paths: readonly string[]): string {
  let common = ancestors(paths[0]!).at(-1)!;
  for (const path of paths) while (!path.startsWith(common)) common = common.slice(0, common.slice(0, -1).lastIndexOf("/") + 1);
  return common;
}

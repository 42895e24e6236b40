/**
 * Which untracked files a snapshot names. A listing meant for a model's context is capped, and it leaves out by
 * name the files that look like secrets (their names alone can say too much, and naming them invites reading
 * them) and files too large to be source: those are counted, each with its reason.
 */
import { lstat } from "node:fs/promises";
import { join } from "node:path";

export const UNTRACKED_LIMIT = 100;
export const LARGE_FILE_BYTES = 1024 * 1024;
/** Beyond this many size checks, files are no longer examined but counted as "more". */
const MAX_SIZE_CHECKS = 10 * UNTRACKED_LIMIT;

export interface HiddenFiles {
  /** Why these files are counted rather than named, phrased to follow the count ("2 larger than 1 MiB"). */
  reason: string;
  count: number;
}

export interface UntrackedFiles {
  /** Every untracked (and not ignored) file. */
  total: number;
  /** The files named, at most `UNTRACKED_LIMIT`, in git's (path) order. */
  files: string[];
  /** Files counted, not named, with the reason, for each reason that applies. */
  hidden: HiddenFiles[];
  /** Files neither named nor hidden, because the list is full. */
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
  const files: string[] = [];
  let examined = 0;
  // Sizes in parallel batches, in order, until the list is full or the checks run out.
  while (files.length < limit && examined < candidates.length && examined < MAX_SIZE_CHECKS) {
    const batch = candidates.slice(examined, examined + Math.min(limit - files.length, MAX_SIZE_CHECKS - examined));
    examined += batch.length;
    const sizes = await Promise.all(
      batch.map((path) =>
        lstat(join(base, path)).then(
          (info) => (info.isFile() ? info.size : 0),
          () => 0,
        ),
      ),
    );
    batch.forEach((path, i) => {
      if (sizes[i]! > largeBytes) hide(largeReason(largeBytes));
      else files.push(path);
    });
  }
  const more = candidates.length - examined;
  // Sensitive reasons first, in rule order, then the size reason.
  const order = [...SENSITIVE_RULES.map((rule) => rule.reason), largeReason(largeBytes)];
  return {
    total: paths.length,
    files,
    hidden: order.filter((reason) => hidden.has(reason)).map((reason) => ({ reason, count: hidden.get(reason)! })),
    more,
  };
}

/** The `--format` gitctx asks of `git log`/`git show` and its parser. Fields are NUL-separated, records too (`-z`). */

export interface Person {
  name: string;
  email: string;
  /** Strict ISO 8601 with the original time zone, e.g. `2024-05-01T12:00:00+02:00`. */
  date: string;
}

export interface CommitInfo {
  hash: string;
  shortHash: string;
  parents: string[];
  author: Person;
  committer: Person;
  subject: string;
  body: string;
}

/**
 * Names and emails as the work tree's `.mailmap` maps them (`%aN`, `%aE`...): what plain `git log` and `git show`
 * print (`log.mailmap` is true by default since git 2.29), and whom `git blame` credits.
 */
const FIELDS = ["%H", "%h", "%P", "%aN", "%aE", "%aI", "%cN", "%cE", "%cI", "%s", "%b"];

/** Pass as `--format=...` together with `-z`. */
export const COMMIT_FORMAT = `--format=${FIELDS.join("%x00")}`;

/** The NUL-terminated fields {@link COMMIT_FORMAT} prints per commit with `-z`. */
export const COMMIT_FIELD_COUNT = FIELDS.length;

export function parseCommits(output: string): CommitInfo[] {
  if (output === "") return [];
  const fields = output.split("\0");
  const commits: CommitInfo[] = [];
  for (let i = 0; i + FIELDS.length <= fields.length; i += FIELDS.length) {
    const [hash, shortHash, parents, an, ae, ad, cn, ce, cd, subject, body] = fields.slice(i, i + FIELDS.length);
    commits.push({
      hash: hash!,
      shortHash: shortHash!,
      parents: parents === "" ? [] : parents!.split(" "),
      author: { name: an!, email: ae!, date: ad! },
      committer: { name: cn!, email: ce!, date: cd! },
      subject: subject!,
      body: body!.replace(/\n+$/, ""),
    });
  }
  return commits;
}

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
  /**
   * The commit's note, as git log and git show print it under "Notes:" (from `core.notesRef`, else
   * refs/notes/commits); absent without one. A note cut to fit ends with a mark.
   */
  notes?: string;
}

/**
 * Names and emails as the work tree's `.mailmap` maps them (`%aN`, `%aE`...): what plain `git log` and `git show`
 * print (`log.mailmap` is true by default since git 2.29), and whom `git blame` credits; with `mailmap` false
 * (the repository's or the user's `log.mailmap=false`), as the commit records them (`%an`...), as git then prints.
 */
export function commitFormat(mailmap: boolean): string {
  return `--format=${commitFields(mailmap).join("%x00")}`;
}

function commitFields(mailmap: boolean): string[] {
  const [author, authorEmail, committer, committerEmail] = mailmap ? ["%aN", "%aE", "%cN", "%cE"] : ["%an", "%ae", "%cn", "%ce"];
  return ["%H", "%h", "%P", author, authorEmail, "%aI", committer, committerEmail, "%cI", "%s", "%b"];
}

/** Pass as `--format=...` together with `-z`: {@link commitFormat} as git's defaults have it. */
export const COMMIT_FORMAT = commitFormat(true);

/** The NUL-terminated fields {@link COMMIT_FORMAT} prints per commit with `-z`. */
export const COMMIT_FIELD_COUNT = commitFields(true).length;

export function parseCommits(output: string): CommitInfo[] {
  if (output === "") return [];
  const fields = output.split("\0");
  const commits: CommitInfo[] = [];
  for (let i = 0; i + COMMIT_FIELD_COUNT <= fields.length; i += COMMIT_FIELD_COUNT) {
    const [hash, shortHash, parents, an, ae, ad, cn, ce, cd, subject, body] = fields.slice(i, i + COMMIT_FIELD_COUNT);
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

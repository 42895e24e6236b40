/** Parser for an annotated tag object as `git cat-file tag <oid>` prints it. Pure: text in, typed data out. */
import { isoDate } from "./dates.js";
import type { Person } from "./log.js";

export interface TagObject {
  /** The object the tag points at (`object` header). */
  object: string;
  /** Its type: `commit` for a release tag; `tag`, `tree` or `blob` for the rarer ones. */
  type: string;
  /** The tag's own name, as written in it (`tag` header). */
  name: string;
  /** `null` for the old tags made without a `tagger` header. */
  tagger: Person | null;
  /** Everything after the headers, as `git show <tag>` prints it (a signature block included). */
  message: string;
}

/**
 * `undefined` when the text is not a tag object's (its first headers must be `object`, `type` and `tag`). Other
 * headers git may add are skipped, as git show skips them.
 */
export function parseTagObject(text: string): TagObject | undefined {
  const end = text.indexOf("\n\n");
  const headers = (end === -1 ? text.replace(/\n$/, "") : text.slice(0, end)).split("\n");
  const message = end === -1 ? "" : text.slice(end + 2);
  const field = (name: string): string | undefined => {
    const line = headers.find((header) => header.startsWith(`${name} `));
    return line?.slice(name.length + 1);
  };
  const [object, type, name] = [field("object"), field("type"), field("tag")];
  if (object === undefined || type === undefined || name === undefined) return undefined;
  const tagger = field("tagger");
  return { object, type, name, tagger: tagger === undefined ? null : parseIdent(tagger), message };
}

/**
 * `Name <email> 1704096000 +0200` as a Person, its date in strict ISO 8601 with the ident's own offset (as `%aI`
 * gives a commit's): `2024-01-01T10:00:00+02:00`. A malformed date leaves `date` empty; the name and email stay.
 */
export function parseIdent(ident: string): Person {
  const open = ident.indexOf("<");
  const close = ident.indexOf(">", open + 1);
  if (open === -1 || close === -1) return { name: ident.trim(), email: "", date: "" };
  const stamp = /^\s*(\d+)\s+([+-]\d{4})\s*$/.exec(ident.slice(close + 1));
  return {
    name: ident.slice(0, open).trim(),
    email: ident.slice(open + 1, close),
    date: stamp === null ? "" : isoDate(stamp[1]!, stamp[2]!),
  };
}

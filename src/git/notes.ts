/**
 * The notes `git log` and `git show` print under a commit ("Notes:"), from the notes ref git shows by default:
 * `core.notesRef` (the repository's config, else the user's), else `refs/notes/commits`. gitctx's formats leave
 * them out (`%N` cannot be framed: a note may hold any byte, NUL included), so they are read apart, only when that
 * ref exists: one `git cat-file --batch` for the page's commits, which frames each note by its size. A note is
 * found at the path of the commit's id in the notes tree, split into fan-out directories (`ab/cdef…`) as the tree
 * grows: each depth git makes is asked for.
 */
import type { CommitInfo } from "./parse/log.js";
import type { Repository } from "./repository.js";

/** What the notes of one page may take in all; the note that crosses it is cut, the later ones left out. */
const NOTES_BYTES = 256 * 1024;
/** Fan-out depths asked for: git splits two hex digits a level, one level per 256-fold growth (4 covers 2^32 notes). */
const FANOUT_DEPTHS = 4;

/** What a text shows of one note; the data holds all of it that was read. */
const NOTE_TEXT_CHARS = 2_000;
const CUT_MARK = " \u2026 [the rest of the note is not shown]";

/** Sets `notes` on each of `commits` that has a note (a note cut at NOTES_BYTES ends with a mark). */
export async function attachNotes(repo: Repository, commits: readonly CommitInfo[]): Promise<void> {
  const notes = await notesOf(
    repo,
    commits.map((commit) => commit.hash),
  );
  for (const commit of commits) {
    const note = notes.get(commit.hash);
    if (note !== undefined) commit.notes = note.truncated ? `${note.text}${CUT_MARK}` : note.text;
  }
}

/** A note's lines as git prints them under a commit: `Notes:`, then each line indented by four spaces. */
export function noteLines(note: string): string[] {
  const shown = note.length > NOTE_TEXT_CHARS ? `${note.slice(0, NOTE_TEXT_CHARS)}${CUT_MARK}` : note.replace(/\n$/, "");
  return ["Notes:", ...shown.split("\n").map((line) => (line === "" ? "" : `    ${line}`))];
}

interface CommitNote {
  text: string;
  /** Whether the text was cut (see NOTES_BYTES). */
  truncated: boolean;
}

/** Each of `commits` (full ids) that has a note, with it. */
async function notesOf(repo: Repository, commits: readonly string[]): Promise<Map<string, CommitNote>> {
  const notes = new Map<string, CommitNote>();
  const ref = repo.notesRef;
  if (commits.length === 0 || !(await repo.anyRefExists([ref]))) return notes;
  const queries: string[] = [];
  for (const commit of commits) for (let depth = 0; depth < FANOUT_DEPTHS; depth++) queries.push(`${ref}:${fanout(commit, depth)}`);
  const read = await repo.git("cat-file", ["--batch"], { input: Buffer.from(`${queries.join("\n")}\n`), maxBytes: NOTES_BYTES });
  const bytes = read.bytes;
  let at = 0;
  for (let i = 0; i < queries.length && at < bytes.length; i++) {
    const end = bytes.indexOf(0x0a, at);
    if (end === -1) break;
    const header = bytes.toString("latin1", at, end);
    at = end + 1;
    if (header.endsWith(" missing") || header.endsWith(" ambiguous")) continue;
    const match = /^[0-9a-f]{40,64} (\w+) (\d+)$/.exec(header);
    if (match === null) break; // Not what cat-file prints: read no further rather than misframe.
    const size = Number(match[2]);
    const commit = commits[Math.floor(i / FANOUT_DEPTHS)]!;
    const whole = at + size <= bytes.length;
    if (match[1] === "blob" && !notes.has(commit)) {
      notes.set(commit, { text: bytes.toString("utf8", at, Math.min(at + size, bytes.length)), truncated: !whole });
    }
    at += size + 1;
  }
  return notes;
}

/** The path of `commit`'s note `depth` fan-out levels down: `abcd…`, `ab/cd…`, `ab/cd/ef…`. */
function fanout(commit: string, depth: number): string {
  const parts: string[] = [];
  for (let level = 0; level < depth; level++) parts.push(commit.slice(level * 2, level * 2 + 2));
  parts.push(commit.slice(depth * 2));
  return parts.join("/");
}

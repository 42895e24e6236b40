/**
 * Small pure helpers for the compact text shown to a model.
 *
 * Text has two kinds of words: gitctx's own (labels, notices, hints) and repository text (paths, branch names,
 * subjects, author names, URLs, stash messages, file contents, patches). Repository text must never pass for
 * gitctx's, and one rule makes sure of it: **every line of repository content starts with a mark that no line of
 * gitctx's starts with**, so where a piece of content ends is never in doubt and nothing in it can continue as
 * gitctx.
 * - A one-line value (a name, path, ref, subject, URL) goes through `showValue` or `showPath`: it can carry no line
 *   break, control character or invisible character (it is quoted, with JSON escapes, when it has one), so it can
 *   neither start a line of its own nor display as another name.
 * - Content of several lines without a mark of its own (a file, an instruction file) is shown by `contentLines`,
 *   each line behind {@link CONTENT_GUTTER}, between gitctx's header line and its end line. (A blamed line is one
 *   line of a file at the end of gitctx's `<hash> <n>| ` prefix: nothing of gitctx's follows it on its line.)
 * - Content that has git's marks already keeps them, as people and models read it: a patch (every line of a
 *   unified diff starts with ` `, `+`, `-`, `\`, `@@` or one of git's header words, paths quoted by git when they
 *   have control characters), a commit message (indented by four spaces, as `git log` shows it). gitctx's own lines
 *   around them start at column 0 with `[` or a word.
 * `escapeControls` then makes every remaining control character and bidirectional-override character of a text
 * visible, so none reaches a terminal and none can reorder gitctx's words on the screen.
 */

/** Control characters (C0 but tab and newline, DEL, C1), the Unicode line and paragraph separators, and the bidi embeddings, overrides and isolates. */
const CONTROL = /[\u0000-\u0008\u000b-\u001f\u007f-\u009f\u2028\u2029\u202a-\u202e\u2066-\u2069]/;
/**
 * What a one-line value may not show raw: controls and line breaks, and every character that displays as nothing
 * (Unicode format characters: bidi marks, embeddings, overrides and isolates, zero-width spaces and joiners, the BOM,
 * tag characters; other default-ignorable ones: variation selectors, Hangul fillers; lone surrogates). A name with
 * one could display as another name, or (a bidi override) turn the rest of gitctx's line around (Trojan Source).
 * Allowed, because emoji are common in subjects and names (gitmoji: `♻️`): a zero-width joiner between two
 * pictographs, a variation selector after one, and the keycap sequence's selector.
 */
const HIDDEN =
  /(?!(?<=\p{Extended_Pictographic}[\uFE0F\p{Emoji_Modifier}]?)\u200D(?=\p{Extended_Pictographic}))(?!(?<=\p{Extended_Pictographic})[\uFE0E\uFE0F])(?!\uFE0F(?=\u20E3))[\p{Cc}\p{Cf}\p{Zl}\p{Zp}\p{Cs}\p{Default_Ignorable_Code_Point}]/u;
const HIDDEN_ALL = new RegExp(HIDDEN.source, "gu");

/** `\uXXXX` for one character, as JSON writes it (a character beyond the BMP as its two surrogates). */
function unicodeEscape(character: string): string {
  let out = "";
  for (let i = 0; i < character.length; i++) out += `\\u${character.charCodeAt(i).toString(16).padStart(4, "0")}`;
  return out;
}

/**
 * A string quoted with escapes for every control and invisible character: JSON's own (`\n`, `\u001b`), plus DEL,
 * C1, the line separators and every character {@link HIDDEN} names, as `\uXXXX`. The result is a JSON string
 * literal, so a model can pass it back as a tool's argument exactly.
 */
export function quoteValue(value: string): string {
  return JSON.stringify(value).replace(HIDDEN_ALL, unicodeEscape);
}

/** Anything but printable ASCII: a value without it has nothing HIDDEN names. */
const BEYOND_PRINTABLE_ASCII = /[^\x20-\x7e]/;

/** Whether a one-line value must be quoted to be shown: it has a line break, a control or an invisible character. */
function hasHidden(value: string): boolean {
  // HIDDEN's look-arounds cost every character; most names and subjects are plain ASCII and need no look at all.
  return BEYOND_PRINTABLE_ASCII.test(value) && HIDDEN.test(value);
}

/** A path as shown in text: bare when unambiguous, quoted when it has spaces at its ends, quotes, control or invisible characters. */
export function showPath(path: string): string {
  return hasHidden(path) || /["\\]|^\s|\s$|\s->\s/.test(path) ? quoteValue(path) : path;
}

/**
 * A one-line repository value (a branch name, subject, author, URL, stash message) as shown in text: as it is,
 * unless it has a line break, another control character or an invisible one, and then quoted with escapes.
 */
export function showValue(value: string): string {
  return hasHidden(value) ? quoteValue(value) : value;
}

const SHORT_ESCAPES: Record<string, string> = { "\n": "\\n", "\r": "\\r", "\t": "\\t" };

/**
 * gitctx's own sentence with repository values inside (a loader's explanation that names files and globs), kept on
 * its line: every line break, control and invisible character escaped (`\u202e`), nothing quoted.
 */
export function showInline(text: string): string {
  return hasHidden(text) ? text.replace(HIDDEN_ALL, (c) => SHORT_ESCAPES[c] ?? unicodeEscape(c)) : text;
}

/** What starts every line of repository content that has no mark of its own: gitctx's own lines never start with it. */
export const CONTENT_GUTTER = "│ ";

/**
 * Repository content (a file's text, an instruction file) as lines of a text, each behind {@link CONTENT_GUTTER}
 * (an empty line as the bare bar, without a trailing space), no newline at the end. A final newline of the
 * content ends its last line rather than adding an empty one.
 */
export function contentLines(content: string): string {
  const body = content.endsWith("\n") ? content.slice(0, -1) : content;
  const bar = CONTENT_GUTTER.trimEnd();
  return body
    .split("\n")
    .map((line) => (line === "" ? bar : `${CONTENT_GUTTER}${line}`))
    .join("\n");
}

/**
 * Every control character of a text but tab, newline and the CR of a CRLF, escaped (`\x1b`), and the bidi
 * embeddings, overrides and isolates (`\u202e`): a file or patch shown as text can then move no terminal cursor,
 * set no clipboard (OSC 52), ring no bell, and reorder no word of gitctx's on the screen. Other invisible characters
 * of multi-line content (zero-width spaces and joiners, a BOM) stay as the file has them: they reorder nothing, and
 * the line's gutter already says whose text they are in.
 */
export function escapeControls(text: string): string {
  if (!CONTROL.test(text)) return text;
  return text.replace(/\r(?!\n)|[\u0000-\u0008\u000b\u000c\u000e-\u001f\u007f-\u009f\u2028\u2029\u202a-\u202e\u2066-\u2069]/g, (c) => {
    const code = c.charCodeAt(0);
    return code < 0x100 ? `\\x${code.toString(16).padStart(2, "0")}` : `\\u${code.toString(16)}`;
  });
}

/**
 * A whole number with a comma between each group of three digits (`10,000`), as `toLocaleString("en-US")` writes
 * it, without that call's first-use cost: it loads ICU's number formats, about 10 ms in a fresh process, which
 * every CLI call paid for one tool description.
 */
export function formatCount(value: number): string {
  if (!Number.isSafeInteger(value)) return String(value);
  const digits = String(Math.abs(value)).replace(/\B(?=(\d{3})+$)/g, ",");
  return value < 0 ? `-${digits}` : digits;
}

export function plural(count: number, singular: string, pluralForm = `${singular}s`): string {
  return `${count} ${count === 1 ? singular : pluralForm}`;
}

/** `+12 -3`, or `binary`. */
export function lineDelta(additions: number | null, deletions: number | null): string {
  return additions === null || deletions === null ? "binary" : `+${additions} -${deletions}`;
}

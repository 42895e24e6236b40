/**
 * Small pure helpers for the compact text shown to a model.
 *
 * Text has two kinds of words: gitctx's own (labels, notices, hints) and repository text (paths, branch names,
 * subjects, author names, URLs, stash messages, file contents, patches). Repository text must never pass for
 * gitctx's: a one-line value goes through `showValue` or `showPath`, so it can carry no line break or control
 * character (it is quoted, with escapes, when it has one) and every line starts with words gitctx wrote;
 * multi-line content (a commit body, a patch, a file) comes under a header that says what it is, bodies indented.
 * `escapeControls` then makes every remaining control character of a text visible, so none reaches a terminal.
 */

/** Control characters (C0 but tab and newline, DEL, C1) and the Unicode line and paragraph separators. */
const CONTROL = /[\u0000-\u0008\u000b-\u001f\u007f-\u009f\u2028\u2029]/;
const CONTROL_OR_LINE_BREAK = /[\u0000-\u001f\u007f-\u009f\u2028\u2029]/;

/** A string quoted with escapes for every control character (JSON's, plus DEL, C1 and the separators). */
export function quoteValue(value: string): string {
  return JSON.stringify(value).replace(/[\u007f-\u009f\u2028\u2029]/g, (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, "0")}`);
}

/** A path as shown in text: bare when unambiguous, quoted when it has spaces at its ends, quotes or control characters. */
export function showPath(path: string): string {
  return CONTROL_OR_LINE_BREAK.test(path) || /["\\]|^\s|\s$|\s->\s/.test(path) ? quoteValue(path) : path;
}

/**
 * A one-line repository value (a branch name, subject, author, URL, stash message) as shown in text: as it is,
 * unless it has a line break or another control character, and then quoted with escapes.
 */
export function showValue(value: string): string {
  return CONTROL_OR_LINE_BREAK.test(value) ? quoteValue(value) : value;
}

/**
 * Every control character of a text but tab, newline and the CR of a CRLF, escaped (`\x1b`): a file or patch
 * shown as text can then move no terminal cursor, set no clipboard (OSC 52) and ring no bell.
 */
export function escapeControls(text: string): string {
  if (!CONTROL.test(text)) return text;
  return text.replace(/\r(?!\n)|[\u0000-\u0008\u000b\u000c\u000e-\u001f\u007f-\u009f\u2028\u2029]/g, (c) => {
    const code = c.charCodeAt(0);
    return code < 0x100 ? `\\x${code.toString(16).padStart(2, "0")}` : `\\u${code.toString(16)}`;
  });
}

export function plural(count: number, singular: string, pluralForm = `${singular}s`): string {
  return `${count} ${count === 1 ? singular : pluralForm}`;
}

/** `+12 -3`, or `binary`. */
export function lineDelta(additions: number | null, deletions: number | null): string {
  return additions === null || deletions === null ? "binary" : `+${additions} -${deletions}`;
}

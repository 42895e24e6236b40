/** Small pure helpers for the compact text shown to a model. */

/** A path as shown in text: bare when unambiguous, JSON-quoted when it has spaces at its ends, quotes or control characters. */
export function showPath(path: string): string {
  // eslint-disable-next-line no-control-regex
  return /[\u0000-\u001f\u007f"\\]|^\s|\s$|\s->\s/.test(path) ? JSON.stringify(path) : path;
}

export function plural(count: number, singular: string, pluralForm = `${singular}s`): string {
  return `${count} ${count === 1 ? singular : pluralForm}`;
}

/** `+12 -3`, or `binary`. */
export function lineDelta(additions: number | null, deletions: number | null): string {
  return additions === null || deletions === null ? "binary" : `+${additions} -${deletions}`;
}

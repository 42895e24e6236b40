/** Parser for `git ls-tree -l -z`. */

export type TreeEntryType = "blob" | "tree" | "commit";

export interface TreeEntry {
  mode: string;
  type: TreeEntryType;
  oid: string;
  /** Size in bytes for blobs; `null` for trees and submodules. */
  size: number | null;
  path: string;
}

export function parseLsTree(output: string): TreeEntry[] {
  const entries: TreeEntry[] = [];
  for (const record of output.split("\0")) {
    if (record === "") continue;
    const tab = record.indexOf("\t");
    const [mode, type, oid, size] = record.slice(0, tab).split(/ +/);
    entries.push({
      mode: mode!,
      type: type as TreeEntryType,
      oid: oid!,
      size: size === undefined || size === "-" ? null : Number(size),
      path: record.slice(tab + 1),
    });
  }
  return entries;
}

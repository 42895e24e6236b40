/**
 * Files a repository's config names that git reads in the commands gitctx runs. git opens them without a second
 * look: a FIFO blocks it at `open` until the timeout, `/dev/zero` as an attributes file grows it without end, a
 * sparse file of gigabytes as an ignore file is allocated whole. They are checked on every call (the file can be
 * swapped at any time, the config need not change), a stat or two each, before git runs.
 *
 * Of the settings whose value is a path (git 2.39's `git_config_pathname` callers), only these two are read by the
 * commands gitctx runs and left in force, since their answer is the repository's own: `mailmap.file` and
 * `mailmap.blob` are emptied (but a bare repository's blob, git's default `HEAD:.mailmap`, and the user's own
 * `mailmap.file`), `blame.ignoreRevsFile` is switched off for git (`--no-ignore-revs-file`; ignore-revs.ts reads
 * the files it names and hands git a checked copy), `diff.orderFile` is
 * overridden (`-O/dev/null`), `core.hooksPath` and `core.fsmonitor` are neutralised, includes are checked by the
 * config scan; `commit.template`, `format.signatureFile` and the `gpg.ssh.*` files are read only by commands or
 * options gitctx never uses (commit, format-patch, signature verification), the `http.*` files only by transports,
 * which are all off.
 *
 * Refused rather than neutralised: emptying the setting would give an answer the user's own git never gives (it
 * blocks or fails on such a file, and on a regular one reads what is there), and would hide a hostile repository.
 * `/dev/null` (the usual way to say "none"), a missing file and a directory (git reads nothing from either) pass.
 */
import { statSync, type Stats } from "node:fs";
import { join } from "node:path";
import { GitctxError } from "../errors.js";
import { showPath } from "../text.js";
import { describeSize, MAX_STATE_FILE_BYTES } from "./file-limits.js";
import { showBytes, type ConfigEntry } from "./parse/config.js";

/** The settings, as git lists their keys, and what git reads from the file. */
const NAMED_FILES = new Map([
  ["core.attributesfile", { name: "core.attributesFile", reads: "attributes" }],
  ["core.excludesfile", { name: "core.excludesFile", reads: "ignore patterns" }],
]);

/**
 * Refuses (`unsafe_repository`) a repository whose config names, in a setting above, a file git cannot read as a
 * file: a FIFO, a socket, a device other than `/dev/null`, or a file larger than any such file written by hand.
 * `workTree`: where git runs (a relative path is relative to it); `where`: the repository, for the message.
 */
export function checkNamedFiles(entries: readonly ConfigEntry[], workTree: string, where: string): void {
  // The last value of a key is the one git uses.
  const last = new Map<string, ConfigEntry>();
  for (const entry of entries) if (entry.key !== undefined && NAMED_FILES.has(entry.key)) last.set(entry.key, entry);
  for (const [key, entry] of last) {
    const setting = NAMED_FILES.get(key)!;
    const value = entry.value;
    if (value.length === 0) continue; // git opens "": nothing.
    const refuse = (what: string): GitctxError =>
      new GitctxError(
        "unsafe_repository",
        `The config of ${where} sets ${setting.name} to ${showPath(showBytes(value))}, ${what}; git reads ${setting.reads} from it on every call.`,
        `Inspect it (git config --show-origin ${setting.name}); if the repository is yours, point the setting at a regular file or unset it, otherwise do not use the repository.`,
      );
    if (value[0] === 0x7e /* ~ */) {
      // `~/`: git's HOME is an empty private directory, where nothing is. `~user/` would be that user's home.
      if (value[1] === 0x2f) continue;
      throw refuse("a file in another user's home directory, which gitctx cannot check");
    }
    const path = value[0] === 0x2f ? value : Buffer.concat([Buffer.from(`${workTree}/`), value]);
    const info = statPath(path);
    if (info === undefined || info.isDirectory()) continue;
    if (info.isFile()) {
      if (info.size > MAX_STATE_FILE_BYTES) throw refuse(`a file of ${describeSize(info.size)}, far larger than any such file`);
      continue;
    }
    if (info.isCharacterDevice() && isDevNull(info)) continue;
    throw refuse(info.isFIFO() ? "a FIFO (git would block on it)" : info.isSocket() ? "a socket" : "a device (git would read it without end)");
  }
}

function statPath(path: Buffer): Stats | undefined {
  try {
    return statSync(path, { throwIfNoEntry: false });
  } catch {
    return undefined; // Not reachable (a loop, a component that is a file): git's open fails the same way.
  }
}

let devNull: Stats | undefined;

function isDevNull(info: Stats): boolean {
  devNull ??= statSync(join("/", "dev", "null"));
  return info.rdev === devNull.rdev;
}

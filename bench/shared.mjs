// What the benchmarks share: the test repository and the median.
import { execFileSync } from "node:child_process";
import { mkdirSync, mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";

/**
 * A repository with `files` files in 20 directories, one commit, then a realistic dirty tree: some edits, one
 * staged file, 5 untracked files. Its index is refreshed once more than a second after the last write, as a
 * settled checkout's would be: gitctx never writes the index, so entries left "racily clean" would be re-hashed
 * on every call and measure the fixture instead of the tool.
 */
export function makeRepository(files, prefix = "gitctx-bench-") {
  const dir = mkdtempSync(join(tmpdir(), prefix));
  const env = { ...process.env, GIT_CONFIG_NOSYSTEM: "1", GIT_CONFIG_GLOBAL: "/dev/null", HOME: dir };
  const git = (...args) => execFileSync("git", args, { cwd: dir, env, stdio: "pipe" });
  git("-c", "init.defaultBranch=main", "init", "-q");
  git("config", "user.name", "Bench");
  git("config", "user.email", "bench@example.com");
  for (let i = 0; i < files; i++) {
    const path = join(dir, `src/module${i % 20}/file${i}.ts`);
    mkdirSync(dirname(path), { recursive: true });
    writeFileSync(path, `export const value${i} = ${i};\n`.repeat(20));
  }
  git("add", "-A");
  git("commit", "-qm", "initial");
  for (let i = 0; i < files; i += 97) writeFileSync(join(dir, `src/module${i % 20}/file${i}.ts`), "changed\n");
  git("add", "src/module0/file0.ts");
  for (let i = 0; i < 5; i++) writeFileSync(join(dir, `untracked${i}.txt`), "new\n");
  execFileSync("sleep", ["1.1"]);
  try {
    git("update-index", "-q", "--refresh");
  } catch {
    // Exit 1 only says some files are modified, which they are.
  }
  return dir;
}

export function median(values) {
  const sorted = [...values].sort((a, b) => a - b);
  const mid = sorted.length >> 1;
  return sorted.length % 2 ? sorted[mid] : (sorted[mid - 1] + sorted[mid]) / 2;
}

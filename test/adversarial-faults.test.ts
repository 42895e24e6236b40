/**
 * Faults with real git: an abort while git is streaming a ~300 MB patch, memory that stays flat (peak RSS of a
 * child node process diffing a ~300 MB working-tree change, with the default cap and while skipping to an
 * offset near the end), and 200 concurrent calls on one toolbox leaving no git process behind.
 * (git missing and a hanging git are covered in test/runner.test.ts.)
 */
import { execFileSync } from "node:child_process";
import { closeSync, openSync, writeSync } from "node:fs";
import { join } from "node:path";
import { beforeAll, describe, expect, it } from "vitest";
import { createToolbox, type ToolResult } from "../src/index.js";
import { livingProcesses, makeRepo, type TestRepo } from "./fixtures/repo.js";

const LINE = "0123456789abcdefghijklmnopqrstuvwxyz0123456789abcdefghijklmnopqrstuvwxyz012345678\n";
const MEBIBYTE = Buffer.from(LINE.repeat(Math.floor(1048576 / LINE.length)));
const CHANGE_MIB = 300;
/** Generous: node itself takes ~50-80 MB; holding the patch would take 300+. */
const RSS_BOUND_BYTES = 250 * 1024 * 1024;

let big: TestRepo;

beforeAll(() => {
  big = makeRepo();
  big.write("big.txt", "x\n").commit("small");
  const fd = openSync(join(big.dir, "big.txt"), "w");
  for (let i = 0; i < CHANGE_MIB; i++) writeSync(fd, MEBIBYTE);
  closeSync(fd);
});

describe("memory stays flat for a diff of several hundred MB", () => {
  it("peak RSS of a process running git_diff (default cap, and skipping to near the end) stays under 250 MB", () => {
    const script = `
      import { createToolbox } from ${JSON.stringify(new URL("../dist/index.js", import.meta.url).href)};
      const toolbox = createToolbox({ root: process.argv[1] });
      const capped = await toolbox.execute("git_diff", {});
      const skipped = await toolbox.execute("git_diff", { offset: ${(CHANGE_MIB - 2) * 1048576}, maxBytes: 1000 });
      const counted = await toolbox.execute("git_diff", { stat: true });
      const pick = (r) => r.ok ? { truncated: r.data.truncated, returnedBytes: r.data.returnedBytes, offset: r.data.offset, files: r.data.files.map((f) => [f.path, f.additions, f.deletions]) } : r.error;
      console.log(JSON.stringify({ capped: pick(capped), skipped: pick(skipped), counted: pick(counted), maxRSS: process.resourceUsage().maxRSS * 1024, rss: process.memoryUsage().rss }));
    `;
    const out = execFileSync(process.execPath, ["--input-type=module", "-e", script, big.dir], { encoding: "utf8", maxBuffer: 1 << 20 });
    const report = JSON.parse(out) as { capped: any; skipped: any; counted: any; maxRSS: number; rss: number };
    const lines = (CHANGE_MIB * MEBIBYTE.length) / LINE.length;
    // The patch windows count no lines (the file's section is not whole in them); stat=true counts them all.
    expect(report.capped).toEqual({ truncated: true, returnedBytes: 20_000, offset: 0, files: [["big.txt", null, null]] });
    expect(report.skipped).toMatchObject({ truncated: true, offset: (CHANGE_MIB - 2) * 1048576, files: [["big.txt", null, null]] });
    expect(report.counted).toEqual({ truncated: false, returnedBytes: 0, offset: 0, files: [["big.txt", lines, 1]] });
    console.log(`adversarial-faults: peak RSS ${(report.maxRSS / 1048576).toFixed(1)} MiB for a ${CHANGE_MIB} MiB change`);
    expect(report.maxRSS).toBeLessThan(RSS_BOUND_BYTES);
    expect(report.rss).toBeLessThan(RSS_BOUND_BYTES);
  });
});

describe("abort mid-stream", () => {
  it("kills git while it streams the patch; the call rejects with the signal's reason and no git is left", async () => {
    const toolbox = createToolbox({ root: big.dir });
    const controller = new AbortController();
    const reason = new Error("stop now");
    // Skipping to near the end of a ~300 MB patch keeps git streaming for a while: abort once it is seen running.
    const call = toolbox.execute("git_diff", { offset: (CHANGE_MIB - 1) * 1048576, maxBytes: 1000 }, { signal: controller.signal });
    let settled = false;
    void call.then(
      () => (settled = true),
      () => (settled = true),
    );
    while (!settled && livingProcesses("--unified=3").filter((pid) => cmdline(pid).includes(big.dir)).length === 0) {
      await new Promise((resolve) => setImmediate(resolve));
    }
    expect(settled).toBe(false);
    controller.abort(reason);
    await expect(call).rejects.toBe(reason);
    expect(livingProcesses(big.dir)).toEqual([]);
  });
});

function cmdline(pid: number): string {
  try {
    return execFileSync("cat", [`/proc/${pid}/cmdline`], { encoding: "utf8" })
      .split("\0")
      .join(" ");
  } catch {
    return "";
  }
}

describe("200 concurrent calls on one toolbox", () => {
  it("all answer exactly as the same calls made one at a time, and no git process is left", async () => {
    const repo = makeRepo();
    repo.write("a.txt", "one\ntwo\n").commit("first");
    repo.write("a.txt", "one\n2\n").commit("second");
    repo.write("a.txt", "one\n2\nthree\n").write("u.txt", "u\n");
    const toolbox = createToolbox({ root: repo.dir });
    const kinds: Array<[string, Record<string, unknown>]> = [
      ["git_status", {}],
      ["git_diff", {}],
      ["git_log", {}],
      ["git_show", { commit: "HEAD" }],
      ["git_blame", { path: "a.txt", ref: "HEAD" }],
      ["git_diff", { commit: "HEAD~1", commit2: "HEAD" }],
      ["git_show", { commit: "HEAD~1", path: "a.txt" }],
      ["git_log", { path: "a.txt", oneline: true }],
    ];
    const expected: ToolResult[] = [];
    for (const [tool, input] of kinds) expected.push(await toolbox.execute(tool, input));
    expect(expected.every((result) => result.ok)).toBe(true);
    const results = await Promise.all(
      Array.from({ length: 200 }, (_, i) => toolbox.execute(kinds[i % kinds.length]![0], kinds[i % kinds.length]![1])),
    );
    expect(results).toEqual(Array.from({ length: 200 }, (_, i) => expected[i % kinds.length]));
    expect(livingProcesses(repo.dir)).toEqual([]);
  });
});

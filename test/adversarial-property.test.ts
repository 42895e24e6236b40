/**
 * Property tests through real repositories: random file names (quotes, backslashes, tabs, newlines, glob and
 * pathspec characters, leading dashes, non-ASCII) and random contents (CR, LF, tabs, non-ASCII, no final newline,
 * empty) are committed, changed and left untracked; status, diff, log, show and blame must give them back
 * exactly. Fixed seed and modest run counts keep CI fast and reproducible.
 */
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { createToolbox } from "../src/index.js";
import { makeRepo } from "./fixtures/repo.js";
import { dataOf } from "./fixtures/calls.js";

const data = dataOf;

const NAME_CHARS = [..."abcXYZ019 -_=+,;:!@#$%^&()[]{}*?'\"\\\t\n~`|<>éü漢字😀"];
const CONTENT_CHARS = [..."ab z09\n\n\r\t \"'\\é漢😀-+"];

const name = fc
  .array(fc.constantFrom(...NAME_CHARS), { minLength: 1, maxLength: 10 })
  .map((chars) => chars.join(""))
  // git refuses `.git` look-alikes; a leading dot is left to the example tests.
  .filter((value) => !value.startsWith(".") && !/git~\d/i.test(value));
const content = fc.array(fc.constantFrom(...CONTENT_CHARS), { maxLength: 40 }).map((chars) => chars.join(""));

const byBytes = (a: string, b: string): number => Buffer.compare(Buffer.from(a), Buffer.from(b));
const blameLines = (text: string): string[] => (text === "" ? [] : text.replace(/\n$/, "").split("\n"));

describe("random names and contents come back exactly", () => {
  it("through status, diff, log, show and blame", async () => {
    const scenario = fc.record({
      files: fc.uniqueArray(fc.tuple(name, content, content), { minLength: 1, maxLength: 4, selector: ([n]) => n }),
      untracked: name,
    });
    await fc.assert(
      fc.asyncProperty(scenario, async ({ files, untracked }) => {
        fc.pre(!files.some(([n]) => n === untracked));
        const repo = makeRepo();
        for (const [n, first] of files) repo.write(n, first);
        const commit = repo.commit("random");
        const changed = files.filter(([, first, second]) => first !== second);
        for (const [n, , second] of files) repo.write(n, second);
        repo.write(untracked, "u\n");
        const toolbox = createToolbox({ root: repo.dir });
        const call = async (tool: string, input: Record<string, unknown>) => data(await toolbox.execute(tool, input));

        const status = await call("git_status", {});
        const expectedEntries = [...changed.map(([n]) => `.M ${n}`), `?? ${untracked}`];
        expect(status.entries.map((e: any) => `${e.kind === "untracked" ? "??" : `${e.index}${e.worktree}`} ${e.path}`)).toEqual(
          expectedEntries.sort((a, b) => (a.startsWith("??") === b.startsWith("??") ? byBytes(a.slice(3), b.slice(3)) : a.startsWith("??") ? 1 : -1)),
        );
        const diff = await call("git_diff", {});
        expect(diff.files.map((f: any) => f.path)).toEqual(changed.map(([n]) => n).sort(byBytes));
        const show = await call("git_show", { commit: "HEAD" });
        expect(show.diff.files.map((f: any) => [f.path, f.status])).toEqual(files.map(([n]) => [n, "added"]).sort((a, b) => byBytes(a[0]!, b[0]!)));
        for (const [n, first, second] of files) {
          expect((await call("git_show", { commit: "HEAD", path: n })).content).toBe(first);
          expect((await call("git_log", { path: n })).commits.map((c: any) => c.hash)).toEqual([commit]);
          expect((await call("git_blame", { path: n, ref: "HEAD" })).lines.map((l: any) => l.content)).toEqual(blameLines(first));
          expect((await call("git_blame", { path: n })).lines.map((l: any) => l.content)).toEqual(blameLines(second));
          expect((await call("git_diff", { path: n })).files.map((f: any) => f.path)).toEqual(first === second ? [] : [n]);
        }
      }),
      { seed: 20240501, numRuns: 12 },
    );
  });
});

import { describe, expect, it } from "vitest";
import {
  countPatch,
  diffTotals,
  parseRaw,
  parseRawNumstat,
  rawHeaderScanner,
  splitLeadingFields,
  type DiffFileSummary,
} from "../src/git/parse/diff.js";

const A = "a".repeat(40);
const B = "b".repeat(40);
const Z = "0".repeat(40);

function summary(fields: Partial<DiffFileSummary> & Pick<DiffFileSummary, "path" | "status">): DiffFileSummary {
  return {
    oldPath: null,
    additions: 0,
    deletions: 0,
    hunks: null,
    binary: false,
    created: fields.status === "added",
    deleted: fields.status === "deleted",
    renamed: fields.status === "renamed",
    copied: fields.status === "copied",
    oldMode: "100644",
    newMode: "100644",
    ...fields,
  };
}

describe("parseRawNumstat", () => {
  it("pairs raw records with numstat records, renames and copies included", () => {
    const output = [
      `:100644 100644 ${A} ${B} M`,
      "edited.txt",
      `:000000 100755 ${Z} ${B} A`,
      "new\nline.sh",
      `:100644 000000 ${A} ${Z} D`,
      "gone.txt",
      `:100644 100644 ${A} ${B} R087`,
      "old name.txt",
      "new name.txt",
      `:100644 100644 ${A} ${A} C100`,
      "source.txt",
      "copy.txt",
      `:100644 100644 ${A} ${B} M`,
      "image.png",
      "3\t1\tedited.txt",
      "2\t0\tnew\nline.sh",
      "0\t4\tgone.txt",
      "1\t1\t",
      "old name.txt",
      "new name.txt",
      "0\t0\t",
      "source.txt",
      "copy.txt",
      "-\t-\timage.png",
      "",
    ].join("\0");
    expect(parseRawNumstat(output)).toEqual([
      summary({ path: "edited.txt", status: "modified", additions: 3, deletions: 1 }),
      summary({ path: "new\nline.sh", status: "added", additions: 2, oldMode: null, newMode: "100755" }),
      summary({ path: "gone.txt", status: "deleted", deletions: 4, newMode: null }),
      summary({ path: "new name.txt", oldPath: "old name.txt", status: "renamed", additions: 1, deletions: 1 }),
      summary({ path: "copy.txt", oldPath: "source.txt", status: "copied" }),
      summary({ path: "image.png", status: "modified", additions: null, deletions: null, binary: true }),
    ]);
  });

  it("folds the second row git prints for an unmerged path into the unmerged one", () => {
    const output = [
      `:000000 100644 ${Z} ${Z} U`,
      "conflict.txt",
      `:100644 100644 ${A} ${Z} M`,
      "conflict.txt",
      `:000000 100644 ${Z} ${Z} U`,
      "deleted-by-them.txt",
      `:100644 100644 ${A} ${Z} M`,
      "other.txt",
      "0\t0\tconflict.txt",
      "4\t1\tconflict.txt",
      "0\t0\tdeleted-by-them.txt",
      "2\t2\tother.txt",
      "",
    ].join("\0");
    expect(parseRawNumstat(output)).toEqual([
      summary({ path: "conflict.txt", status: "unmerged", additions: 4, deletions: 1, oldMode: null }),
      summary({ path: "deleted-by-them.txt", status: "unmerged", oldMode: null }),
      summary({ path: "other.txt", status: "modified", additions: 2, deletions: 2 }),
    ]);
  });

  it("parses empty output as no files", () => {
    expect(parseRawNumstat("")).toEqual([]);
    expect(diffTotals([])).toEqual({ files: 0, additions: 0, deletions: 0, binary: 0, uncounted: 0 });
  });

  it("totals lines and binary files", () => {
    const files = [
      summary({ path: "a", status: "modified", additions: 3, deletions: 1 }),
      summary({ path: "b", status: "added", additions: null, deletions: null, binary: true }),
      summary({ path: "c", status: "deleted", deletions: 7 }),
    ];
    expect(diffTotals(files)).toEqual({ files: 3, additions: 3, deletions: 8, binary: 1, uncounted: 0 });
  });
});

const EDIT = (name: string, hunks = 1): string =>
  `diff --git a/${name} b/${name}\nindex 1111111..2222222 100644\n--- a/${name}\n+++ b/${name}\n${"@@ -1 +1 @@\n-old\n+new\n".repeat(hunks)}`;

/** Hunks per path, as countPatch counts them. */
function countHunks(patch: string, complete: boolean): { counts: Map<string, number>; unreadable: boolean } {
  const { counts, unreadable } = countPatch(patch, complete);
  return { counts: new Map([...counts].map(([path, counted]) => [path, counted.hunks])), unreadable };
}

describe("countPatch: hunks", () => {
  it("counts hunks of every section of a complete patch", () => {
    const patch = `${EDIT("one.txt", 2) + EDIT("two.txt")}diff --git a/run.sh b/run.sh\nold mode 100644\nnew mode 100755\n`;
    expect(countHunks(patch, true)).toEqual({
      counts: new Map([
        ["one.txt", 2],
        ["two.txt", 1],
        ["run.sh", 0],
      ]),
      unreadable: false,
    });
  });

  it("counts only sections wholly inside a window of the patch", () => {
    const whole = EDIT("one.txt") + EDIT("two.txt") + EDIT("three.txt");
    // Cut inside the last section; a section is whole only when the next one starts in the window.
    const head = whole.slice(0, whole.indexOf("diff --git a/three.txt") + 30);
    expect(countHunks(head, false).counts).toEqual(
      new Map([
        ["one.txt", 1],
        ["two.txt", 1],
      ]),
    );
    // A window starting inside the first section: that section is not counted.
    const tail = whole.slice(10);
    expect(countHunks(tail, true).counts).toEqual(
      new Map([
        ["two.txt", 1],
        ["three.txt", 1],
      ]),
    );
    // Cut inside the next header line: the section before it is whole all the same.
    for (const partial of ["dif", "diff --", "diff --gi"]) {
      const cut = whole.slice(0, whole.indexOf("diff --git a/three.txt") + partial.length);
      expect(countHunks(cut, false).counts, partial).toEqual(
        new Map([
          ["one.txt", 1],
          ["two.txt", 1],
        ]),
      );
    }
    // Two letters could still begin "dissimilarity index", a line of the same section.
    const di = whole.slice(0, whole.indexOf("diff --git a/three.txt") + 2);
    expect(countHunks(di, false).counts).toEqual(new Map([["one.txt", 1]]));
    // Neither start nor end of any section.
    expect(countHunks(whole.slice(5, 40), false).counts).toEqual(new Map());
  });

  it("names files by their new name, the old one for a deletion, and keeps names parsePatch would trim", () => {
    const patch = [
      "diff --git a/old name b/new name\nsimilarity index 90%\nrename from old name\nrename to new name\n",
      "index 1..2 100644\n--- a/old name\t\n+++ b/new name\t\n@@ -1 +1 @@\n-a\n+b\n",
      "diff --git a/gone.txt b/gone.txt\ndeleted file mode 100644\nindex 1111111..0000000\n--- a/gone.txt\n+++ /dev/null\n@@ -1 +0,0 @@\n-x\n",
      "diff --git a/trailing  b/trailing \nindex 1..2 100644\n--- a/trailing \t\n+++ b/trailing \t\n@@ -1 +1 @@\n-a\n+b\n",
      'diff --git "a/tab\\there" "b/tab\\there"\nindex 1..2 100644\n--- "a/tab\\there"\n+++ "b/tab\\there"\n@@ -1 +1 @@\n-a\n+b\n',
      "diff --git a/b/inner.txt b/b/inner.txt\nindex 1..2 100644\n--- a/b/inner.txt\n+++ b/b/inner.txt\n@@ -1 +1 @@\n-a\n+b\n",
    ].join("");
    expect(countHunks(patch, true).counts).toEqual(
      new Map([
        ["new name", 1],
        ["gone.txt", 1],
        ["trailing ", 1],
        ["tab\there", 1],
        ["b/inner.txt", 1],
      ]),
    );
  });

  it("sums the two sections git prints for a type change", () => {
    const patch =
      "diff --git a/x b/x\ndeleted file mode 100644\nindex 1..0 \n--- a/x\n+++ /dev/null\n@@ -1 +0,0 @@\n-file\n" +
      "diff --git a/x b/x\nnew file mode 120000\nindex 0..2\n--- /dev/null\n+++ b/x\n@@ -0,0 +1 @@\n+target\n\\ No newline at end of file\n";
    expect(countHunks(patch, true).counts).toEqual(new Map([["x", 2]]));
  });

  it("counts the @@@ hunks of a combined diff, which parsePatch does not", () => {
    const patch =
      "diff --cc conflict.txt\nindex 1111111,2222222..0000000\n--- a/conflict.txt\n+++ b/conflict.txt\n" +
      "@@@ -1,2 -1,2 +1,6 @@@\n  one\n++<<<<<<< HEAD\n +ours\n++=======\n+ theirs\n++>>>>>>> other\n" +
      "@@@ -10,1 -10,1 +14,5 @@@\n++<<<<<<< HEAD\n +a\n++=======\n+ b\n++>>>>>>> other\n" +
      "* Unmerged path deleted.txt\n";
    expect(countHunks(patch, true)).toEqual({ counts: new Map([["conflict.txt", 2]]), unreadable: false });
  });

  it("flags a section it cannot read instead of guessing zero", () => {
    const broken = "diff --git a/bad b/bad\nindex 1..2 100644\n--- a/bad\n+++ b/bad\n@@ -1,3 +1,3 @@\n-only one line\n";
    expect(countHunks(EDIT("good.txt") + broken, true)).toEqual({ counts: new Map([["good.txt", 1]]), unreadable: true });
  });
});

describe("countPatch: lines", () => {
  it("counts added and deleted lines per file, not headers or the no-newline marker, and flags binary files", () => {
    const patch =
      "diff --git a/a.txt b/a.txt\nindex 1..2 100644\n--- a/a.txt\n+++ b/a.txt\n" +
      "@@ -1,3 +1,3 @@\n keep\n--- looks like a header\n+++ looks like a header\n-last\n\\ No newline at end of file\n+last\n" +
      "diff --git a/img.png b/img.png\nindex 1..2 100644\nBinary files a/img.png and b/img.png differ\n" +
      "diff --git a/x b/x\ndeleted file mode 100644\nindex 1..0\n--- a/x\n+++ /dev/null\n@@ -1 +0,0 @@\n-file\n" +
      "diff --git a/x b/x\nnew file mode 120000\nindex 0..2\n--- /dev/null\n+++ b/x\n@@ -0,0 +1 @@\n+target\n";
    expect(countPatch(patch, true).counts).toEqual(
      new Map([
        ["a.txt", { hunks: 1, additions: 2, deletions: 2, binary: false }],
        ["img.png", { hunks: 0, additions: null, deletions: null, binary: true }],
        ["x", { hunks: 2, additions: 1, deletions: 1, binary: false }],
      ]),
    );
  });
});

describe("parseRaw", () => {
  it("lists every file with its counts unknown", () => {
    const output = [`:100644 100644 ${A} ${Z} M`, "edited.txt", `:100644 100644 ${A} ${B} R090`, "old.txt", "new.txt", ""].join("\0");
    expect(parseRaw(output)).toEqual([
      summary({ path: "edited.txt", status: "modified", additions: null, deletions: null, binary: null }),
      summary({ path: "new.txt", oldPath: "old.txt", status: "renamed", additions: null, deletions: null, binary: null }),
    ]);
  });
});

describe("rawHeaderScanner", () => {
  const output = Buffer.from(`:100644 100644 ${A} ${Z} M\0a.txt\0\0diff --git a/a.txt b/a.txt\n`);
  const end = output.indexOf("diff");

  it("finds the end of the raw records in one chunk, or split anywhere across two", () => {
    expect(rawHeaderScanner()(output)).toBe(end);
    for (let cut = 1; cut < output.length; cut++) {
      const scan = rawHeaderScanner();
      const first = scan(output.subarray(0, cut));
      const found = first ?? cut + scan(output.subarray(cut))!;
      expect(found, `cut at ${cut}`).toBe(end);
    }
  });

  it("skips leading fields first, empty ones included, wherever the chunks are cut", () => {
    // git show -z --format=<3 fields>: "hash NUL NUL(empty parents) subject NUL", a newline, then the records.
    const shown = Buffer.concat([Buffer.from(`${A}\0\0subject\0\n`), output]);
    const end = shown.indexOf("diff");
    expect(rawHeaderScanner(3)(shown)).toBe(end);
    for (let cut = 1; cut < shown.length; cut++) {
      const scan = rawHeaderScanner(3);
      const first = scan(shown.subarray(0, cut));
      expect(first ?? cut + scan(shown.subarray(cut))!, `cut at ${cut}`).toBe(end);
    }
    expect(splitLeadingFields(shown.subarray(0, end).toString(), 3)).toEqual({
      fields: [A, "", "subject"],
      rest: `:100644 100644 ${A} ${Z} M\0a.txt\0\0`,
    });
  });

  it("reads on while no two NULs follow each other", () => {
    expect(rawHeaderScanner()(output.subarray(0, end - 1))).toBeUndefined();
  });
});

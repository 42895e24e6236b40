/** The pure parsers behind git_log, git_show and git_blame, on hand-written git output. */
import { describe, expect, it } from "vitest";
import { parseBlamePorcelain, unquoteC } from "../src/git/parse/blame.js";
import { configInteger } from "../src/git/parse/config.js";
import { parseCommits } from "../src/git/parse/log.js";
import { parseIdent, parseTagObject } from "../src/git/parse/tag.js";
import { parseLsTree } from "../src/git/parse/tree.js";

const A = "a".repeat(40);
const B = "b".repeat(40);
const C = "c".repeat(40);
const ZERO = "0".repeat(40);

describe("parseCommits (log -z with NUL-separated fields)", () => {
  it("reads nothing from empty output", () => {
    expect(parseCommits("")).toEqual([]);
  });

  it("reads every field of each record, merges and root commits included", () => {
    const record = (fields: string[]) => `${fields.join("\0")}\0`;
    const output =
      record([
        C,
        "ccccccc",
        `${A} ${B}`,
        "Ada",
        "ada@x",
        "2024-01-02T00:00:00+01:00",
        "Bot",
        "bot@x",
        "2024-01-03T00:00:00-05:00",
        "Merge",
        "line 1\n\nline 3\n\n",
      ]) + record([A, "aaaaaaa", "", "Grace", "g@x", "2024-01-01T00:00:00+00:00", "Grace", "g@x", "2024-01-01T00:00:00+00:00", "Root", ""]);
    expect(parseCommits(output)).toEqual([
      {
        hash: C,
        shortHash: "ccccccc",
        parents: [A, B],
        author: { name: "Ada", email: "ada@x", date: "2024-01-02T00:00:00+01:00" },
        committer: { name: "Bot", email: "bot@x", date: "2024-01-03T00:00:00-05:00" },
        subject: "Merge",
        body: "line 1\n\nline 3",
      },
      {
        hash: A,
        shortHash: "aaaaaaa",
        parents: [],
        author: { name: "Grace", email: "g@x", date: "2024-01-01T00:00:00+00:00" },
        committer: { name: "Grace", email: "g@x", date: "2024-01-01T00:00:00+00:00" },
        subject: "Root",
        body: "",
      },
    ]);
  });
});

describe("parseLsTree (ls-tree -l -z)", () => {
  it("reads blobs with sizes, trees and gitlinks without, and names with tabs and newlines", () => {
    const output = [
      `100644 blob ${A}      14\ta.txt`,
      `100755 blob ${B}       0\tname\twith tab\nand newline`,
      `040000 tree ${C}       -\tdir`,
      `160000 commit ${A}       -\tvendor/lib`,
      `120000 blob ${B}       5\tlink`,
      "",
    ].join("\0");
    expect(parseLsTree(output)).toEqual([
      { mode: "100644", type: "blob", oid: A, size: 14, path: "a.txt" },
      { mode: "100755", type: "blob", oid: B, size: 0, path: "name\twith tab\nand newline" },
      { mode: "040000", type: "tree", oid: C, size: null, path: "dir" },
      { mode: "160000", type: "commit", oid: A, size: null, path: "vendor/lib" },
      { mode: "120000", type: "blob", oid: B, size: 5, path: "link" },
    ]);
  });

  it("reads nothing from empty output", () => {
    expect(parseLsTree("")).toEqual([]);
  });
});

describe("unquoteC (git's quoting of path names)", () => {
  it("leaves a bare name alone", () => {
    expect(unquoteC("plain name.txt")).toBe("plain name.txt");
    expect(unquoteC("\u00fcber.txt")).toBe("\u00fcber.txt");
  });

  it("undoes escapes and octal bytes, which may form UTF-8 characters", () => {
    expect(unquoteC('"we\\"ird\\nname"')).toBe('we"ird\nname');
    expect(unquoteC('"back\\\\slash\\ttab"')).toBe("back\\slash\ttab");
    expect(unquoteC('"\\303\\274ber \\346\\227\\245"')).toBe("\u00fcber \u65e5");
    expect(unquoteC('"a\\a\\b\\f\\r\\vz"')).toBe("a\u0007\b\f\r\u000bz");
  });
});

describe("parseBlamePorcelain", () => {
  const porcelain = [
    `${A} 1 1 2`,
    "author Ada Lovelace",
    "author-mail <ada@example.com>",
    "author-time 1704103200",
    "author-tz +0200",
    "committer Grace Hopper",
    "committer-mail <grace@example.org>",
    "committer-time 1704189600",
    "committer-tz -0730",
    "summary First: with a colon",
    "boundary",
    'filename "old \\"name\\".txt"',
    "\tline one",
    `${A} 2 2`,
    "\t\tindented line two",
    `${ZERO} 3 3 1`,
    "author Not Committed Yet",
    "author-mail <not.committed.yet>",
    "author-time 1900000000",
    "author-tz +0000",
    "committer Not Committed Yet",
    "committer-mail <not.committed.yet>",
    "committer-time 1900000000",
    "committer-tz +0000",
    "summary Version of f.txt from f.txt",
    `previous ${A} f.txt`,
    "filename f.txt",
    "\tauthor looks like a header",
    "",
  ].join("\n");

  it("reads one entry per line and each commit once, with times in their own zones", () => {
    expect(parseBlamePorcelain(porcelain)).toEqual({
      lines: [
        { line: 1, hash: A, originalLine: 1, content: "line one" },
        { line: 2, hash: A, originalLine: 2, content: "\tindented line two" },
        { line: 3, hash: ZERO, originalLine: 3, content: "author looks like a header" },
      ],
      commits: {
        [A]: {
          hash: A,
          author: "Ada Lovelace",
          authorEmail: "ada@example.com",
          // 1704103200 is 2024-01-01T10:00:00Z.
          authorTime: "2024-01-01T12:00:00+02:00",
          committer: "Grace Hopper",
          committerEmail: "grace@example.org",
          // 1704189600 is 2024-01-02T10:00:00Z.
          committerTime: "2024-01-02T02:30:00-07:30",
          summary: "First: with a colon",
          filename: 'old "name".txt',
          boundary: true,
          uncommitted: false,
        },
        [ZERO]: {
          hash: ZERO,
          author: "Not Committed Yet",
          authorEmail: "not.committed.yet",
          authorTime: null,
          committer: "Not Committed Yet",
          committerEmail: "not.committed.yet",
          committerTime: null,
          summary: "Version of f.txt from f.txt",
          filename: "f.txt",
          boundary: false,
          uncommitted: true,
        },
      },
    });
  });

  it("reads nothing from empty output", () => {
    expect(parseBlamePorcelain("")).toEqual({ lines: [], commits: {} });
  });
});

describe("parseTagObject (git cat-file tag)", () => {
  it("reads the headers and the message, a signature block included", () => {
    const text = `object ${A}\ntype commit\ntag v1.0\ntagger Rel Eng <rel@example.com> 1704096000 +0200\n\nRelease\n\n-----BEGIN PGP SIGNATURE-----\nx\n-----END PGP SIGNATURE-----\n`;
    expect(parseTagObject(text)).toEqual({
      object: A,
      type: "commit",
      name: "v1.0",
      tagger: { name: "Rel Eng", email: "rel@example.com", date: "2024-01-01T10:00:00+02:00" },
      message: "Release\n\n-----BEGIN PGP SIGNATURE-----\nx\n-----END PGP SIGNATURE-----\n",
    });
  });

  it("takes an old tag without a tagger or a message, and refuses what is not a tag", () => {
    expect(parseTagObject(`object ${B}\ntype tree\ntag t\n`)).toEqual({ object: B, type: "tree", name: "t", tagger: null, message: "" });
    expect(parseTagObject(`tree ${B}\nauthor x <y> 1 +0000\n\nmsg\n`)).toBeUndefined();
  });

  it("writes an ident's date in the ident's own offset, west of Greenwich and across midnight", () => {
    expect(parseIdent("A <a@x> 1704067200 -0130").date).toBe("2023-12-31T22:30:00-01:30");
    expect(parseIdent("A <a@x> 0 +0000").date).toBe("1970-01-01T00:00:00+00:00");
    expect(parseIdent("A <a@x> soon")).toEqual({ name: "A", email: "a@x", date: "" });
  });
});

describe("configInteger (an integer setting as git reads it)", () => {
  it("reads C's base-0 numbers with git's units, and nothing git would refuse", () => {
    const read = (value: string) => configInteger(value);
    expect(["3", "0", "+4", "-2", " 5", "0x10", "010", "1k", "2M", "1g", "0"].map(read)).toEqual([
      3,
      0,
      4,
      -2,
      5,
      16,
      8,
      1024,
      2 * 1024 ** 2,
      1024 ** 3,
      0,
    ]);
    for (const value of ["", "abc", "3 ", "08", "1kb", "1.5", "0x", "99999999999"]) expect(read(value), value).toBeUndefined();
  });
});

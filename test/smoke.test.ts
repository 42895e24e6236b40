import { describe, expect, it } from "vitest";
import { createToolbox } from "../src/index.js";
import { makeRepo } from "./fixtures/repo.js";

describe("smoke", () => {
  it("reports a clean tree on a fresh commit", async () => {
    const repo = makeRepo();
    repo.write("a.txt", "hello\n");
    repo.commit("first");
    const result = await createToolbox({ root: repo.dir }).execute("git_status", {});
    expect(result).toEqual({
      ok: true,
      tool: "git_status",
      data: {
        branch: { head: "main", oid: repo.head(), upstream: null, ahead: null, behind: null, detached: false },
        clean: true,
        entries: [],
        counts: { staged: 0, unstaged: 0, untracked: 0, conflicted: 0, total: 0 },
        offset: 0,
        nextOffset: null,
        path: null,
        neutralised: [],
      },
      text: "On branch main\nWorking tree clean: nothing staged, nothing modified, no untracked files.",
    });
  });
});

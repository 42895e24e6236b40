/**
 * The snapshot through the toolbox: the `git_context` tool, and `git_diff` against the base branch (`@{base}`).
 */
import { realpathSync, utimesSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import {
  contextText,
  countTokens,
  createToolbox,
  renderSnapshot,
  snapshot,
  type GitContextData,
  type GitDiffData,
  type ToolResult,
} from "../src/index.js";
import { gitContext } from "../src/tools/git-context.js";
import { cloneRepo, makeRepo, type TestRepo } from "./fixtures/repo.js";
import { call as callTool, callOk } from "./fixtures/calls.js";

async function call<T>(root: string, tool: string, input: Record<string, unknown> = {}): Promise<ToolResult<T>> {
  return (await callTool(root, tool, input)) as ToolResult<T>;
}

const ok = callOk;

/**
 * A clone whose `feature` branch (no upstream, so the base comes from refs/remotes/origin/HEAD) has two commits
 * since origin/main, while origin/main moved on by one; plus an uncommitted edit and a staged file.
 */
function featureRepo(): { repo: TestRepo; mergeBase: string } {
  const seed = makeRepo();
  seed.write("a.txt", "a\n").write("shared.txt", "one\n").commit("initial");
  const origin = makeRepo({ bare: true });
  seed.git(["push", "-q", origin.dir, "main"]);
  const repo = cloneRepo(origin.dir);
  const mergeBase = repo.head();
  repo.git(["checkout", "-q", "-b", "feature"]);
  repo.write("f1.txt", "first\n").commit("feature 1");
  repo.write("f2.txt", "second\n").commit("feature 2");
  seed.write("upstream.txt", "upstream\n").commit("upstream work");
  seed.git(["push", "-q", origin.dir, "main"]);
  repo.git(["fetch", "-q", "origin"]);
  repo.write("a.txt", "a edited\n");
  repo.write("staged.txt", "staged\n");
  repo.git(["add", "staged.txt"]);
  return { repo, mergeBase };
}

describe("git_context", () => {
  it("returns the snapshot as data and the rendered text, with how it was fitted", async () => {
    const { repo } = featureRepo();
    const { data, text } = await ok<GitContextData>(repo.dir, "git_context");
    expect(data.snapshot.sections).toHaveLength(12);
    expect(data.snapshot.base).toMatchObject({ ok: true, value: { name: "origin/main", rule: "remote-head", ahead: 2, behind: 1 } });
    expect(data.rendering).toEqual({
      budget: 2000,
      tokens: await countTokens(text),
      shown: ["branch", "head", "base", "status", "untracked", "commits", "remotes"],
      omitted: [],
    });
    // The same text as the library's snapshot + render.
    const direct = await renderSnapshot(await snapshot({ root: repo.dir }));
    expect(text).toBe(direct.text);
    expect(await contextText({ root: repo.dir })).toBe(text);
    // The data matches the tool's declared output schema (MCP validates structuredContent against it).
    expect(gitContext.outputSchema!.safeParse(data).success).toBe(true);
  });

  it("its data matches the output schema with every kind of section, unavailable ones included", async () => {
    const { repo } = featureRepo();
    repo.git(["stash", "-q"]);
    repo.git(["worktree", "add", "-q", "--detach", `${repo.dir}-linked`]);
    writeFileSync(join(repo.dir, ".git", "refs", "stash"), `${"1234567890".repeat(4)}\n`);
    const lock = join(repo.dir, ".git", "index.lock");
    writeFileSync(lock, "");
    utimesSync(lock, new Date(Date.UTC(2024, 0, 1)), new Date(Date.UTC(2024, 0, 1)));
    const { data } = await ok<GitContextData>(repo.dir, "git_context");
    expect(data.snapshot.stashes).toEqual({ ok: false, reason: "git stash list failed: fatal: bad object refs/stash" });
    expect(data.snapshot.indexLock).toMatchObject({ ok: true, value: { modifiedAt: "2024-01-01T00:00:00.000Z", stale: true } });
    const parsed = gitContext.outputSchema!.safeParse(data);
    expect(parsed.error).toBeUndefined();
    expect(gitContext.outputSchema!.safeParse({ ...data, extra: 1 }).success).toBe(false);
  });

  it("takes a budget and sections", async () => {
    const { repo } = featureRepo();
    const { data, text } = await ok<GitContextData>(repo.dir, "git_context", { budget: 60, sections: ["base", "branch"] });
    expect(data.snapshot.sections).toEqual(["branch", "base"]);
    expect(data.rendering.tokens).toBeLessThanOrEqual(60);
    const base = data.snapshot.base?.ok ? data.snapshot.base.value : undefined;
    // The base line fits; the advice under it (which git_diff call shows the branch's change) does not.
    expect(text.split("\n")).toEqual([
      `Git repository: ${realpathSync(repo.dir)}`,
      "Branch: feature",
      `Base branch: origin/main (default branch of origin, per refs/remotes/origin/HEAD): 2 ahead, 1 behind, merge-base ${base!.mergeBase!.slice(0, 12)}.`,
    ]);
    const roomy = await ok<GitContextData>(repo.dir, "git_context", { budget: 120, sections: ["base", "branch"] });
    expect(roomy.text.split("\n").at(-1)).toBe(
      '  Whole change of this branch: git_diff {"commit":"@{base}"} (with uncommitted work) or {"commit":"@{base}..HEAD"} (commits only).',
    );
  });

  it("rejects a bad budget, an unknown section and unknown fields", async () => {
    const { repo } = featureRepo();
    for (const input of [{ budget: 0 }, { budget: 200_001 }, { budget: 1.5 }, { sections: [] }, { sections: ["nope"] }, { depth: 1 }]) {
      const result = await call(repo.dir, "git_context", input);
      expect(result.ok, JSON.stringify(input)).toBe(false);
      if (!result.ok) expect(result.error.code).toBe("invalid_input");
    }
    const unknown = await call(repo.dir, "git_context", { depth: 1 });
    expect(unknown).toEqual({
      ok: false,
      tool: "git_context",
      error: {
        code: "invalid_input",
        message: 'Invalid input for git_context: unknown field "depth".',
        hint: "git_context accepts: budget, sections.",
      },
    });
  });

  it("is read-only and offered by every toolbox", () => {
    const info = createToolbox().tools.find((tool) => tool.name === "git_context");
    expect(info).toMatchObject({ name: "git_context", permission: "read-only", title: "Git repository context" });
    expect(info!.inputSchema).toMatchObject({ type: "object", additionalProperties: false });
  });
});

describe("git_diff against the base branch: @{base}", () => {
  it('commit="@{base}": the whole change of the branch since its merge-base, uncommitted work included', async () => {
    const { repo, mergeBase } = featureRepo();
    const { data, text } = await ok<GitDiffData>(repo.dir, "git_diff", { commit: "@{base}", stat: true });
    const label = `@{base} (merge-base ${mergeBase.slice(0, 12)} of HEAD and origin/main, default branch of origin, per refs/remotes/origin/HEAD)`;
    expect(data.mode).toBe("commit");
    expect(data.comparison).toBe(`working tree vs ${label}`);
    expect(data.base).toBe(mergeBase);
    expect(data.files.map((file) => [file.path, file.status])).toEqual([
      ["a.txt", "modified"],
      ["f1.txt", "added"],
      ["f2.txt", "added"],
      ["staged.txt", "added"],
    ]);
    // Not origin/main's own later commit (upstream.txt): the diff starts at the merge-base.
    expect(text.split("\n")[0]).toBe(`Diff of working tree vs ${label}: 4 files changed, +4 -1`);
  });

  it('commit="@{base}..HEAD": the branch\'s commits only, as a pull request shows them; staged and three-dot work too', async () => {
    const { repo, mergeBase } = featureRepo();
    const committed = await ok<GitDiffData>(repo.dir, "git_diff", { commit: "@{base}..HEAD", stat: true });
    expect(committed.data.mode).toBe("range");
    expect(committed.data.base).toBe(mergeBase);
    expect(committed.data.target).toBe(repo.head());
    expect(committed.data.files.map((file) => file.path)).toEqual(["f1.txt", "f2.txt"]);
    const threeDot = await ok<GitDiffData>(repo.dir, "git_diff", { commit: "@{base}...HEAD", stat: true });
    expect(threeDot.data.files.map((file) => file.path)).toEqual(["f1.txt", "f2.txt"]);
    const staged = await ok<GitDiffData>(repo.dir, "git_diff", { commit: "@{base}", staged: true, stat: true });
    expect(staged.data.files.map((file) => file.path)).toEqual(["f1.txt", "f2.txt", "staged.txt"]);
    const pair = await ok<GitDiffData>(repo.dir, "git_diff", { commit: "@{base}", commit2: "HEAD", stat: true });
    expect(pair.data.files.map((file) => file.path)).toEqual(["f1.txt", "f2.txt"]);
  });

  it("uses the upstream when the branch has one", async () => {
    const { repo } = featureRepo();
    repo.git(["branch", "-q", "--set-upstream-to=origin/main"]);
    const upstreamTip = repo.git(["rev-parse", "origin/main"]).trim();
    repo.git(["stash", "-q"]);
    repo.git(["merge", "-q", "--no-edit", "origin/main"], { env: { GIT_AUTHOR_DATE: "1704067200 +0000", GIT_COMMITTER_DATE: "1704067200 +0000" } });
    const { data } = await ok<GitDiffData>(repo.dir, "git_diff", { commit: "@{base}..HEAD", stat: true });
    expect(data.base).toBe(upstreamTip);
    expect(data.comparison).toBe(`@{base} (merge-base ${upstreamTip.slice(0, 12)} of HEAD and origin/main, upstream of feature) vs HEAD`);
    expect(data.files.map((file) => file.path)).toEqual(["f1.txt", "f2.txt"]);
  });

  it("fails with bad_revision and a hint when there is no base, no commit yet, or no common history", async () => {
    const lonely = makeRepo();
    lonely.write("a.txt", "a\n").commit("initial");
    lonely.git(["branch", "-m", "main", "work"]);
    expect(await call(lonely.dir, "git_diff", { commit: "@{base}" })).toEqual({
      ok: false,
      tool: "git_diff",
      error: {
        code: "bad_revision",
        message:
          "@{base}: no base branch found: the current branch has no upstream, no remote records a default branch (refs/remotes/<remote>/HEAD), and none of main, master, develop, trunk exists on a remote or locally.",
        hint: 'Name the branch to compare with instead, e.g. commit="origin/main...HEAD" for the change since the branches diverged.',
      },
    });

    const island = makeRepo();
    island.write("a.txt", "a\n").commit("initial");
    island.git(["checkout", "-q", "--orphan", "island"]);
    island.write("b.txt", "b\n").commit("island");
    expect(await call(island.dir, "git_diff", { commit: "@{base}" })).toMatchObject({
      ok: false,
      error: {
        code: "bad_revision",
        message:
          "@{base}: HEAD and its base branch main (first of main, master, develop, trunk among local branches) share no history, so there is no merge-base.",
        hint: 'Compare the two snapshots directly with commit="main..HEAD".',
      },
    });

    const unborn = makeRepo();
    unborn.git(["remote", "add", "origin", join(unborn.dir, "nowhere")]);
    unborn.write("a.txt", "a\n");
    const seeded = makeRepo();
    const tip = seeded.write("x.txt", "x\n").commit("x");
    unborn.git(["fetch", "-q", seeded.dir, "main"]);
    unborn.git(["update-ref", "refs/remotes/origin/main", tip]);
    expect(await call(unborn.dir, "git_diff", { commit: "@{base}" })).toMatchObject({
      ok: false,
      error: { code: "bad_revision", message: "@{base}: HEAD has no commits yet, so it has no merge-base with the base branch origin/main." },
    });
  });

  it("@{base} is exact: other spellings are ordinary revisions, which git does not know", async () => {
    const { repo } = featureRepo();
    for (const commit of ["@{BASE}", "@{ base}", "x@{base}"]) {
      const result = await call(repo.dir, "git_diff", { commit });
      expect(result.ok, commit).toBe(false);
      if (!result.ok) expect(result.error.code).toBe("bad_revision");
    }
  });
});

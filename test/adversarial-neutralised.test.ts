/**
 * Telling the user: git_status (`data.neutralised` and one line of text) and git_context (`snapshot.neutralised`
 * and a header line) name every program-naming setting of the repository's config that gitctx neutralised,
 * with its scope; settings that name no program (or turn it off) are not reported.
 */
import { describe, expect, it } from "vitest";
import { createToolbox } from "../src/index.js";
import { makeRepo } from "./fixtures/repo.js";
import { okOf } from "./fixtures/calls.js";

const ok = okOf;

const WARNING = "Warning: this repository's config names programs git would run; gitctx neutralised them (none ran): ";

describe("the neutralised report", () => {
  it("is empty for a benign repository, with no warning line", async () => {
    const repo = makeRepo();
    repo.write("a.txt", "a\n").commit("first");
    repo.git(["config", "core.fsmonitor", "false"]);
    repo.git(["config", "core.pager", "cat"]);
    repo.git(["config", "pager.log", "false"]);
    repo.git(["config", "diff.external", ""]);
    repo.git(["config", "credential.helper", "store"]);
    repo.git(["config", "remote.origin.url", "https://example.com/r.git"]);
    const toolbox = createToolbox({ root: repo.dir });
    const status = ok(await toolbox.execute("git_status", {}));
    expect(status.data.neutralised).toEqual([]);
    expect(status.text).toBe("On branch main\nWorking tree clean: nothing staged, nothing modified, no untracked files.");
    const context = ok(await toolbox.execute("git_context", {}));
    expect(context.data.snapshot.neutralised).toEqual([]);
    expect(context.text).not.toContain("Warning:");
  });

  it("names every program-naming key, in config order, with its scope, and never its value", async () => {
    const repo = makeRepo();
    repo.write("a.txt", "a\n").commit("first");
    const settings: Array<[string, string]> = [
      ["core.fsmonitor", "/x/fsmonitor-secret"],
      ["core.hooksPath", "/x/hooks-secret"],
      ["core.pager", "less-secret"],
      ["pager.status", "/x/pager-secret"],
      ["core.sshCommand", "ssh-secret"],
      ["diff.external", "/x/external-secret"],
      ["diff.drv.textconv", "/x/textconv-secret"],
      ["diff.drv.command", "/x/command-secret"],
      ["filter.x=y.clean", "/x/clean-secret"],
      ["filter.Proc.process", "/x/process-secret"],
      ["gpg.program", "/x/gpg-secret"],
      ["gpg.ssh.program", "/x/gpgssh-secret"],
      ["remote.origin.url", "ext::/x/ext-secret"],
      ["remote.origin.uploadpack", "/x/uploadpack-secret"],
      ["protocol.ext.allow", "always"],
    ];
    for (const [key, value] of settings) repo.git(["config", key, value]);
    const keys = [
      "core.fsmonitor",
      "core.hookspath",
      "core.pager",
      // git config adds a key to its section where it already exists: [core] comes first in the file.
      "core.sshcommand",
      "pager.status",
      "diff.external",
      "diff.drv.textconv",
      "diff.drv.command",
      "filter.x=y.clean",
      "filter.Proc.process",
      "gpg.program",
      "gpg.ssh.program",
      "remote.origin.url",
      "remote.origin.uploadpack",
      "protocol.ext.allow",
    ];
    const toolbox = createToolbox({ root: repo.dir });
    const status = ok(await toolbox.execute("git_status", {}));
    expect(status.data.neutralised).toEqual(keys.map((key) => ({ key, scope: "local" })));
    expect(status.text.split("\n")).toEqual([
      "On branch main",
      "Working tree clean: nothing staged, nothing modified, no untracked files.",
      `${WARNING}${keys.join(", ")}.`,
    ]);
    const long = ok(await toolbox.execute("git_status", { short: false }));
    expect(long.text.split("\n").at(-1)).toBe(`${WARNING}${keys.join(", ")}.`);
    const context = ok(await toolbox.execute("git_context", { sections: ["branch"] }));
    expect(context.data.snapshot.neutralised).toEqual(keys.map((key) => ({ key, scope: "local" })));
    expect(context.text.split("\n")).toEqual([`Git repository: ${repo.dir}`, `${WARNING}${keys.join(", ")}`, "Branch: main"]);
    for (const result of [status, long, context]) expect(JSON.stringify(result)).not.toContain("secret");
  });

  it("reports a checked-out submodule's own settings with the submodule's path as scope", async () => {
    const source = makeRepo();
    source.write("s.txt", "s\n").commit("sub");
    const superRepo = makeRepo();
    superRepo.write("x.txt", "x\n").commit("x");
    superRepo.git(["-c", "protocol.file.allow=always", "submodule", "add", "-q", source.dir, "lib/sub"]);
    superRepo.commit("add sub");
    superRepo.git(["config", "core.fsmonitor", "/x/sub-fsmonitor"], { cwd: `${superRepo.dir}/lib/sub` });
    superRepo.git(["config", "diff.external", "/x/top-external"]);
    const status = ok(await createToolbox({ root: superRepo.dir }).execute("git_status", {}));
    expect(status.data.neutralised).toEqual([
      { key: "diff.external", scope: "local" },
      { key: "core.fsmonitor", scope: "submodule lib/sub" },
    ]);
    expect(status.text.split("\n").at(-1)).toBe(`${WARNING}diff.external, core.fsmonitor (submodule lib/sub).`);
  });
});

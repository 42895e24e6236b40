/**
 * The config-key table and the one `settingDisabled`: what each value means on a command line and in a
 * repository, that the report of neutralised settings and the classifier never disagree, and that every key the
 * runner claims to neutralise is overridden by the runner's own arguments or environment.
 */
import { describe, expect, it } from "vitest";
import { COMMAND_SETTINGS, globalArgs, hardenedEnv, subcommandArgs } from "../src/git/hardening.js";
import { classifyCommand } from "../src/index.js";
import { CONFIG_KEYS, configKeyRule, neutralisedSetting, RUNNER_NEUTRALISED_CONFIG, settingDisabled } from "../src/safety/config-keys.js";

describe("settingDisabled", () => {
  it("answers for a command line and a repository, differing only where what follows differs", () => {
    const cases: Array<[string, string | null, boolean, boolean]> = [
      // key, value, disabled on a command line, disabled in a repository
      ["core.fsmonitor", "false", true, true],
      ["core.fsmonitor", "", true, true],
      ["core.fsmonitor", null, false, false], // true: git's own fsmonitor daemon
      ["core.fsmonitor", "/tmp/x", false, false],
      ["core.hooksPath", "/dev/null", true, true],
      ["core.hooksPath", "", false, false], // git then looks for hooks at /<name>
      ["core.hooksPath", ".githooks", false, false],
      ["core.sshCommand", "", true, true], // the empty command fails to run: nothing runs
      ["core.sshCommand", "false", true, true],
      ["core.sshCommand", "ssh -i key", false, false],
      ["pager.log", "true", false, true], // turns paging on / names no program
      ["pager.log", null, false, true],
      ["pager.log", "false", true, true],
      ["pager.log", "less -R", false, false],
      ["core.pager", "cat", true, true],
      ["core.pager", "", true, true],
      ["core.editor", "true", true, true],
      ["core.editor", ":", true, true],
      ["core.editor", "vim", false, false],
      ["log.showSignature", "false", true, true],
      ["log.showSignature", "true", false, false],
      ["blame.ignoreRevsFile", "", true, true],
      ["blame.ignoreRevsFile", "/dev/null", true, true],
      ["blame.ignoreRevsFile", ".git-blame-ignore-revs", false, false],
      ["remote.origin.url", "ext::sh -c id", false, false],
      ["remote.origin.url", "https://example.com/r.git", true, true],
      ["alias.x", "!sh", false, false],
      ["alias.x", "status", true, true],
      ["color.ui", "always", true, true], // names no program or file at all
      // Never trimmed: git keeps the spaces of a -c value and of a quoted value in a file.
      ["core.hooksPath", " /dev/null", false, false], // a relative path: a directory the work tree may hold
      ["core.hooksPath", "/dev/null ", false, false],
      ["core.fsmonitor", "false ", false, false], // a hook program named `false `
      ["core.fsmonitor", " 0", false, false],
      ["pager.log", " false", false, false],
      ["blame.ignoreRevsFile", " ", false, false],
    ];
    for (const [key, value, commandLine, repository] of cases) {
      expect(settingDisabled(key, value, "command-line"), `${key}=${value} (command line)`).toBe(commandLine);
      expect(settingDisabled(key, value, "repository"), `${key}=${value} (repository)`).toBe(repository);
    }
  });

  it("is what the classifier applies to -c", () => {
    expect(classifyCommand("git -c core.hooksPath=/dev/null log -1").verdict).toBe("allow");
    expect(classifyCommand("git -c core.hooksPath= commit -m x").verdict).toBe("deny");
    expect(classifyCommand("git -c pager.log=true log -1").verdict).toBe("ask");
    expect(classifyCommand("git -c core.sshCommand= fetch").verdict).toBe("ask");
  });

  it("never calls a setting neutralised that it calls disabled", () => {
    const values = [null, "", "true", "false", "cat", ":", "/dev/null", "/tmp/x", "sh -c id", "ext::sh", "never", "always"];
    const keys = [
      "core.fsmonitor",
      "core.hookspath",
      "core.pager",
      "pager.log",
      "diff.external",
      "diff.x.textconv",
      "diff.x.command",
      "filter.x.clean",
      "gpg.program",
      "core.sshcommand",
      "remote.origin.url",
      "protocol.ext.allow",
      "ssh.variant",
    ];
    for (const key of keys) {
      for (const value of values) {
        if (neutralisedSetting(key, value)) expect(settingDisabled(key, value, "repository"), `${key}=${value}`).toBe(false);
      }
    }
  });
});

describe("the config-key table", () => {
  it("gives every key a use and a description", () => {
    for (const rule of CONFIG_KEYS) {
      if (rule.what === "") continue;
      expect(rule.fires.length > 0 || /trace2/.test(String(rule.pattern)), String(rule.pattern)).toBe(true);
    }
    for (const key of [
      "core.alternateRefsCommand",
      "blame.ignoreRevsFile",
      "man.viewer",
      "man.foo.cmd",
      "core.editor",
      "hook.x.command",
      "gc.recentObjectsHook",
      "mailmap.file",
      "core.excludesFile",
    ]) {
      expect(configKeyRule(key), key).toBeDefined();
    }
  });

  it("covers every key the runner claims to neutralise with the runner's own arguments or environment", () => {
    const args = globalArgs("/g", "/w");
    const settings = new Map(COMMAND_SETTINGS.map(([key, value]) => [key.toLowerCase(), value]));
    // Every pinned setting of the runner that names a key of the table sets a value the table calls disabled.
    for (const [key, value] of settings) {
      if (configKeyRule(key) === undefined || key === "protocol.allow") continue;
      expect(settingDisabled(key, value, "command-line"), `${key}=${value}`).toBe(true);
    }
    const env = hardenedEnv({ gitDir: "/usr/bin", home: "/h", filterDrivers: ["x"] });
    const overridden: Record<string, boolean> = {
      "core.fsmonitor": settings.has("core.fsmonitor"),
      "core.hookspath": settings.get("core.hookspath") === "/dev/null",
      "core.pager": args.includes("--no-pager") && env.GIT_PAGER === "cat",
      "pager.log": args.includes("--no-pager"),
      "diff.external": settings.get("diff.external") === "",
      "diff.x.textconv": subcommandArgs("diff").includes("--no-textconv") && subcommandArgs("blame").includes("--no-textconv"),
      "diff.x.command": subcommandArgs("diff").includes("--no-ext-diff"),
      "filter.x.clean": Object.entries(env).some(([name, value]) => value === "filter.x.clean" && env[name.replace("KEY", "VALUE")] === ""),
      "gpg.program": settings.get("gpg.program") === "false",
      "gpg.ssh.program": settings.get("gpg.ssh.program") === "false",
      "core.sshcommand": settings.get("core.sshcommand") === "false" && env.GIT_SSH_COMMAND === "false",
      // No transport at all: every remote program, URL and ssh variant is unreachable.
      "core.gitproxy": settings.get("protocol.allow") === "never" && env.GIT_ALLOW_PROTOCOL === "none",
      "core.askpass": env.GIT_ASKPASS === "false",
      "remote.origin.uploadpack": settings.get("protocol.allow") === "never",
      "remote.origin.vcs": settings.get("protocol.allow") === "never",
      "remote.origin.url": settings.get("protocol.allow") === "never",
      "ssh.variant": env.GIT_ALLOW_PROTOCOL === "none",
      "protocol.ext.allow": env.GIT_ALLOW_PROTOCOL === "none",
    };
    for (const pattern of RUNNER_NEUTRALISED_CONFIG) {
      const examples = Object.keys(overridden).filter((key) => pattern.test(key));
      expect(examples.length, `an example key for ${String(pattern)}`).toBeGreaterThan(0);
      for (const key of examples) expect(overridden[key], key).toBe(true);
    }
  });
});

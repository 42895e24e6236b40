/**
 * `gitctx demo`, tested by spawning the built binary on fixture repositories (`npm test` builds first; after
 * editing src/, run `npm run build`). Timings vary, so they are replaced by "N ms" before comparing.
 */
import { spawn } from "node:child_process";
import { existsSync, readFileSync } from "node:fs";
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { buildSystemContext } from "../src/agent/index.js";
import { createToolbox } from "../src/index.js";
import { MAIN, PACKAGE_ROOT } from "./fixtures/cli.js";
import { makeRepo, tempDir, type TestRepo } from "./fixtures/repo.js";

const TASK = "check git status and summarize current diff";

interface Run {
  status: number | null;
  stdout: string;
  stderr: string;
}

/** Spawns the CLI without blocking this process (a test may serve HTTP to it meanwhile). */
function gitctx(args: string[], options: { cwd?: string; env?: Record<string, string>; command?: string[] } = {}): Promise<Run> {
  const [program, ...prefix] = options.command ?? [process.execPath, MAIN];
  const child = spawn(program as string, [...prefix, ...args], {
    cwd: options.cwd ?? PACKAGE_ROOT,
    env: { PATH: process.env.PATH ?? "", HOME: tempDir("gitctx-demo-home-"), LC_ALL: "C", ...options.env },
    stdio: ["ignore", "pipe", "pipe"],
  });
  let stdout = "";
  let stderr = "";
  child.stdout.setEncoding("utf8").on("data", (chunk: string) => (stdout += chunk));
  child.stderr.setEncoding("utf8").on("data", (chunk: string) => (stderr += chunk));
  return new Promise((resolvePromise, reject) => {
    child.on("error", reject);
    child.on("close", (status) => resolvePromise({ status, stdout, stderr }));
  });
}

const timeless = (text: string): string => text.replace(/\d+(\.\d)? ms\b/g, "N ms");

let repo: TestRepo;

beforeAll(() => {
  if (!existsSync(MAIN)) throw new Error(`${MAIN} does not exist: run "npm run build" first (npm test does it for you).`);
  repo = makeRepo();
  repo.write("src/app.ts", "export const answer = 41;\n").write("README.md", "# app\n");
  repo.commit("Initial app");
  repo.write("src/app.ts", "export const answer = 42;\nexport const question = '?';\n");
  repo.write("src/new.ts", "export const fresh = true;\n");
  repo.git(["add", "src/new.ts"]);
  repo.write("TODO.md", "- ship it\n");
});

async function contextLine(root: string): Promise<string> {
  const context = await buildSystemContext(createToolbox({ root }));
  return `System context: ${context.tokens} tokens of 2000 (${context.parts.map((part) => `${part.name} ${part.tokens}`).join(", ")})`;
}

describe("gitctx demo", () => {
  it("prints each step like the seed's harness, then the answer and where the time went", async () => {
    const run = await gitctx(["demo", "--root", repo.dir, TASK]);
    expect(run.stderr).toBe("");
    expect(run.status).toBe(0);
    expect(timeless(run.stdout)).toBe(
      [
        `Task: ${TASK}`,
        "Provider: scripted (offline; set ANTHROPIC_API_KEY to use Claude)",
        await contextLine(repo.dir),
        "Tools offered: git_status, git_diff, git_log, git_show, git_blame, git_context, load_instructions, git_changes",
        "Step 1 [model]: Model requested tool: git_status (N ms)",
        "Step 1 [tool]: Tool completed: git_status (N ms)",
        "Step 2 [model]: Model requested tools: git_diff, git_diff (N ms)",
        "Step 2 [tool]: Tool completed: git_diff (N ms)",
        "Step 2 [tool]: Tool completed: git_diff (N ms)",
        "Step 3 [final]: Model returned a final answer. (N ms)",
        "",
        "On branch main: 3 paths changed (1 staged, 1 unstaged, 1 untracked).",
        "Staged: 1 file, +1 -0: src/new.ts (added, +1 -0).",
        "Unstaged: 1 file, +2 -1: src/app.ts (modified, +2 -1).",
        "Untracked (not in any diff): TODO.md.",
        "What is staged will go into the next commit; the rest will not until it is added.",
        "",
        "Done: final answer after 3 steps and 3 tool calls in N ms (model N ms, tools N ms, system context N ms, loop N ms).",
        "",
      ].join("\n"),
    );
  });

  it("works from the repository as its current directory, and from a subdirectory", async () => {
    const here = await gitctx(["demo", TASK], { cwd: repo.dir });
    expect(here.status).toBe(0);
    expect(here.stdout).toContain("Staged: 1 file, +1 -0: src/new.ts (added, +1 -0).");
    const below = await gitctx(["demo", TASK], { cwd: join(repo.dir, "src") });
    expect(below.status).toBe(0);
    expect(below.stdout).toContain("On branch main: 2 paths changed (1 staged, 1 unstaged, 0 untracked).");
  });

  it("--transcript writes the whole exchange as JSON lines", async () => {
    const file = join(tempDir(), "run.jsonl");
    const run = await gitctx(["demo", "--root", repo.dir, "--transcript", file, TASK]);
    expect(run.status).toBe(0);
    const lines = readFileSync(file, "utf8")
      .trimEnd()
      .split("\n")
      .map((line) => JSON.parse(line) as Record<string, unknown>);
    expect(lines.map((line) => line.type)).toEqual(["start", "model", "tool", "model", "tool", "tool", "model", "final", "end"]);
    const start = lines[0] as {
      task: string;
      provider: string;
      tools: string[];
      system: { text: string };
      definitions: { name: string; input_schema: unknown }[];
      maxSteps: number;
    };
    expect(start).toMatchObject({
      task: TASK,
      provider: "scripted",
      maxSteps: 8,
      tools: ["git_status", "git_diff", "git_log", "git_show", "git_blame", "git_context", "load_instructions", "git_changes"],
    });
    expect(start.system.text).toContain("<git_context>");
    // What a model would be sent: the scripted provider sends nothing, so Anthropic's definitions are recorded.
    expect(start.definitions.map((definition) => definition.name)).toEqual(start.tools);
    expect(start.definitions[0]?.input_schema).toMatchObject({ type: "object", additionalProperties: false });
    // The whole result goes in: the data the model never saw, the text it did.
    const status = lines[2] as { name: string; input: unknown; result: { ok: boolean; data: { counts: { total: number } }; text: string } };
    expect(status.name).toBe("git_status");
    expect(status.result.data.counts.total).toBe(3);
    expect(status.result.text).toBe(((await createToolbox({ root: repo.dir }).execute("git_status", {})) as { text: string }).text);
    expect(lines.at(-1)).toMatchObject({ type: "end", status: "final", steps: 3 });
    expect((lines.at(-1) as { answer: string }).answer).toContain("Staged: 1 file");
  });

  it("--context-report prints the tokens of each part", async () => {
    const run = await gitctx(["demo", "--root", repo.dir, "--context-report", TASK]);
    expect(run.status).toBe(0);
    const report = run.stdout.slice(run.stdout.indexOf("Context report (o200k tokens):"));
    const labels = report
      .split("\n")
      .slice(1)
      .filter(Boolean)
      .map((line) => line.replace(/\s+\d+$/, "").trimEnd());
    expect(labels).toEqual([
      "  system context",
      "    preamble",
      "    git_context",
      "    load_instructions",
      "  tool definitions (8)",
      "    git_status",
      "    git_diff",
      "    git_log",
      "    git_show",
      "    git_blame",
      "    git_context",
      "    load_instructions",
      "    git_changes",
      "  task",
      "  tool results (3)",
      "    step 1 git_status",
      "    step 2 git_diff",
      "    step 2 git_diff",
      "  model turns (3)",
      "    step 1: git_status",
      "    step 2: git_diff, git_diff",
      "    step 3 (final answer)",
      "  last request",
      "  all requests together",
    ]);
  });

  it("tool errors show as failed steps, and the run goes on", async () => {
    const run = await gitctx(["demo", "--root", repo.dir, "summarize the diff of src/missing.ts in 0 bytes and commit it"]);
    expect(run.status).toBe(0);
    const steps = timeless(run.stdout)
      .split("\n")
      .filter((line) => line.startsWith("Step "));
    expect(steps).toEqual([
      "Step 1 [model]: Model requested tools: git_commit, git_status (N ms)",
      "Step 1 [tool]: Tool failed: git_commit: unknown_tool (N ms)",
      "Step 1 [tool]: Tool failed: git_status: path_not_found (N ms)",
      "Step 2 [model]: Model requested tool: git_status (N ms)",
      "Step 2 [tool]: Tool completed: git_status (N ms)",
      "Step 3 [model]: Model requested tools: git_diff, git_diff (N ms)",
      "Step 3 [tool]: Tool failed: git_diff: invalid_input (N ms)",
      "Step 3 [tool]: Tool failed: git_diff: invalid_input (N ms)",
      "Step 4 [model]: Model requested tools: git_diff, git_diff (N ms)",
      "Step 4 [tool]: Tool completed: git_diff (N ms)",
      "Step 4 [tool]: Tool completed: git_diff (N ms)",
      "Step 5 [final]: Model returned a final answer. (N ms)",
    ]);
  });

  it("--max-steps reached: no answer, exit 1", async () => {
    const run = await gitctx(["demo", "--root", repo.dir, "--max-steps", "1", TASK]);
    expect(run.status).toBe(1);
    expect(timeless(run.stdout)).toContain(
      "Step 1 [tool]: Tool completed: git_status (N ms)\nStep 1 [stop]: Reached maxSteps (1) without a final answer.\n\nDone: no final answer (max steps reached) after 1 step and 1 tool call in N ms",
    );
  });

  it("usage errors: bad --max-steps, --provider anthropic without a key, a transcript that cannot be written", async () => {
    const steps = await gitctx(["demo", "--max-steps", "0", TASK]);
    expect(steps.status).toBe(2);
    expect(steps.stderr).toBe(
      "error: option '--max-steps <n>' argument '0' is invalid. Expected a whole number from 1 to 100, e.g. --max-steps 8.\n(run \"gitctx demo --help\" for usage)\n",
    );
    const key = await gitctx(["demo", "--provider", "anthropic", TASK]);
    expect(key.status).toBe(2);
    expect(key.stderr).toBe('error: --provider anthropic needs ANTHROPIC_API_KEY in the environment.\n(run "gitctx demo --help" for usage)\n');
    const file = await gitctx(["demo", "--root", repo.dir, "--transcript", join(tempDir(), "no", "such", "dir.jsonl"), TASK]);
    expect(file.status).toBe(2);
    expect(file.stderr).toMatch(/^error: cannot write the transcript to .*dir\.jsonl: ENOENT/);
    expect(file.stdout).toBe("");
  });

  it("npm run dev -- TASK runs the demo", async () => {
    const npm = await gitctx(["run", "--silent", "dev", "--", "--root", repo.dir, TASK], { command: ["npm"] });
    expect(npm.status).toBe(0);
    const direct = await gitctx(["demo", "--root", repo.dir, TASK]);
    expect(timeless(npm.stdout)).toBe(timeless(direct.stdout));
  });
});

describe("gitctx demo with ANTHROPIC_API_KEY", () => {
  let server: Server;
  let baseUrl: string;
  const bodies: { model: string; messages: unknown[] }[] = [];

  beforeAll(async () => {
    server = createServer((request, response) => {
      let body = "";
      request.setEncoding("utf8").on("data", (chunk: string) => (body += chunk));
      request.on("end", () => {
        const parsed = JSON.parse(body) as { model: string; messages: unknown[] };
        bodies.push(parsed);
        const content =
          parsed.messages.length === 1
            ? [{ type: "tool_use", id: "toolu_1", name: "git_status", input: {} }]
            : [{ type: "text", text: "Claude says: one staged file." }];
        response.writeHead(request.headers["x-api-key"] === "sk-test" ? 200 : 401, { "content-type": "application/json" });
        response.end(
          JSON.stringify({ type: "message", role: "assistant", content, stop_reason: content[0]?.type === "tool_use" ? "tool_use" : "end_turn" }),
        );
      });
    });
    await new Promise<void>((resolvePromise) => server.listen(0, "127.0.0.1", resolvePromise));
    baseUrl = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  });
  afterAll(async () => {
    await new Promise((resolvePromise) => server.close(resolvePromise));
  });

  it("uses Claude over the Messages API at ANTHROPIC_BASE_URL, with --model", async () => {
    const run = await gitctx(["demo", "--root", repo.dir, "--model", "claude-test", "what is staged?"], {
      env: { ANTHROPIC_API_KEY: "sk-test", ANTHROPIC_BASE_URL: baseUrl },
    });
    expect(run.stderr).toBe("");
    expect(run.status).toBe(0);
    const lines = timeless(run.stdout).split("\n");
    expect(lines[1]).toBe("Provider: anthropic claude-test");
    expect(lines.filter((line) => line.startsWith("Step "))).toEqual([
      "Step 1 [model]: Model requested tool: git_status (N ms)",
      "Step 1 [tool]: Tool completed: git_status (N ms)",
      "Step 2 [final]: Model returned a final answer. (N ms)",
    ]);
    expect(run.stdout).toContain("\nClaude says: one staged file.\n");
    expect(bodies.map((body) => body.model)).toEqual(["claude-test", "claude-test"]);
    // --provider scripted overrides the key.
    const offline = await gitctx(["demo", "--root", repo.dir, "--provider", "scripted", TASK], {
      env: { ANTHROPIC_API_KEY: "sk-test", ANTHROPIC_BASE_URL: baseUrl },
    });
    expect(offline.stdout.split("\n")[1]).toBe("Provider: scripted (offline)");
  });

  it("an API that refuses the key: the error is the step, exit 1", async () => {
    const run = await gitctx(["demo", "--root", repo.dir, "--base-url", baseUrl, "status?"], { env: { ANTHROPIC_API_KEY: "wrong" } });
    expect(run.status).toBe(1);
    expect(run.stdout).toContain("Step 1 [error]: The Anthropic API answered 401: ");
    expect(run.stdout).toContain("Done: no final answer (the model API failed) after 1 step and 0 tool calls");
  });
});

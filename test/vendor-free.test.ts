/**
 * No vendor SDK is loaded at runtime: not by the root entry, not by the adapters' own subpath exports (they
 * emit plain JSON and take only types from the SDKs), nor the agent loop. Each import runs in a fresh node process whose module
 * loader records every module it loads; a control run proves the recording sees a vendor SDK when one is
 * imported. Runs against the built `dist/` (`npm test` builds first).
 */
import { spawnSync } from "node:child_process";
import { existsSync, readFileSync, writeFileSync } from "node:fs";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";
import { beforeAll, describe, expect, it } from "vitest";
import { tempDir } from "./fixtures/repo.js";

const PACKAGE_ROOT = resolve(dirname(fileURLToPath(import.meta.url)), "..");
const VENDOR = /\/node_modules\/(@anthropic-ai\/|openai\/|ai\/|@ai-sdk\/)/;

let hooks: string;

beforeAll(() => {
  const entry = join(PACKAGE_ROOT, "dist", "index.js");
  if (!existsSync(entry)) throw new Error(`${entry} does not exist: run "npm run build" first (npm test does it for you).`);
  const dir = tempDir("gitctx-vendor-free-");
  hooks = join(dir, "hooks.mjs");
  // Module customization hooks (node:module register): every module that is loaded is appended to the log.
  writeFileSync(
    hooks,
    [
      'import { appendFileSync } from "node:fs";',
      "export async function load(url, context, nextLoad) {",
      "  appendFileSync(process.env.GITCTX_LOAD_LOG, url + '\\n');",
      "  return nextLoad(url, context);",
      "}",
    ].join("\n"),
  );
});

/** The URLs of every module a fresh node loads while it imports `specifier` (resolved from the package root). */
function loadedBy(specifier: string): string[] {
  const log = join(tempDir("gitctx-load-log-"), "loaded.txt");
  writeFileSync(log, "");
  const register = `import { register } from "node:module"; register(${JSON.stringify(pathToFileURL(hooks).href)});`;
  const result = spawnSync(
    process.execPath,
    ["--import", `data:text/javascript,${encodeURIComponent(register)}`, "--input-type=module", "-e", `await import(${JSON.stringify(specifier)});`],
    { cwd: PACKAGE_ROOT, env: { PATH: process.env.PATH ?? "", GITCTX_LOAD_LOG: log }, encoding: "utf8" },
  );
  if (result.status !== 0) throw new Error(`importing ${specifier} failed: ${result.stderr}`);
  return readFileSync(log, "utf8").split("\n").filter(Boolean);
}

describe("no vendor SDK at runtime", () => {
  it("the control: importing a vendor SDK shows up in the record", () => {
    const loaded = loadedBy("openai");
    expect(loaded.filter((url) => VENDOR.test(url)).length).toBeGreaterThan(0);
  });

  it("the root entry loads gitctx and its dependencies, and no vendor SDK", () => {
    const loaded = loadedBy("gitctx");
    expect(loaded).toContain(pathToFileURL(join(PACKAGE_ROOT, "dist", "index.js")).href);
    expect(loaded.filter((url) => VENDOR.test(url))).toEqual([]);
  });

  const SUBPATHS: Record<string, string> = {
    anthropic: "adapters/anthropic.js",
    openai: "adapters/openai.js",
    "ai-sdk": "adapters/ai-sdk.js",
    agent: "agent/index.js",
  };
  for (const [subpath, file] of Object.entries(SUBPATHS)) {
    it(`gitctx/${subpath} resolves to dist/${file} and loads no vendor SDK`, () => {
      const loaded = loadedBy(`gitctx/${subpath}`);
      expect(loaded).toContain(pathToFileURL(join(PACKAGE_ROOT, "dist", file)).href);
      expect(loaded.filter((url) => VENDOR.test(url))).toEqual([]);
    });
  }
});

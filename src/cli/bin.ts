#!/usr/bin/env node
/**
 * The installed `gitctx` command (`dist/bin/gitctx.js`, the package's `bin`). It loads the whole command, bundled
 * into one CommonJS file by `scripts/bundle-cli.mjs`, through V8's code cache (`code-cache.ts`): a fresh process
 * then neither resolves some 220 modules nor compiles the code it ran last time, which was most of the start-up
 * time of every call (`npm run bench`, classify section). The bundle script names the bundle's content hash
 * here; without it (this file run unbundled) the bundle is compiled as usual.
 */
import { createRequire } from "node:module";
import { fileURLToPath } from "node:url";
import { requireWithCodeCache } from "./code-cache.js";
import type { startCli } from "./start.js";

declare const GITCTX_BUNDLE_HASH: string | undefined;

const bundle = fileURLToPath(new URL("../bin/gitctx.cjs", import.meta.url));
const identity = typeof GITCTX_BUNDLE_HASH === "string" ? GITCTX_BUNDLE_HASH : undefined;
// The bundle is ASCII (the bundle script checks), so decoding it as Latin-1 is exact, and faster than UTF-8.
const loaded =
  identity === undefined ? createRequire(import.meta.url)(bundle) : requireWithCodeCache(bundle, { stem: "gitctx-cli", identity }, "latin1");
// No top-level await: this file is bundled as CommonJS.
void (loaded as { startCli: typeof startCli }).startCli(process.argv.slice(2)).then((code) => {
  process.exitCode = code;
});

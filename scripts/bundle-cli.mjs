/**
 * Bundles the `gitctx` command into dist/bin/, from tsc's output:
 * - dist/bin/gitctx.cjs: `src/cli/start.ts` and everything it imports, dependencies included, as one CommonJS
 *   file. A fresh Node process then reads one file instead of about 220 modules (zod alone is 95), and
 *   `src/cli/bin.ts` can run it through V8's code cache, which Node 20 offers only for CommonJS. A command's own
 *   modules stay behind their dynamic `import()`: bundled, but evaluated only when that command runs.
 * - dist/bin/gitctx.js: `src/cli/bin.ts`, the package's `bin`, told the bundle's content hash (its cache's name).
 *
 * The library (dist/index.js and the adapters) is not bundled: an application loads it once.
 */
import { createHash } from "node:crypto";
import { readFileSync, writeFileSync } from "node:fs";
import { rm } from "node:fs/promises";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { build } from "esbuild";

const root = join(dirname(fileURLToPath(import.meta.url)), "..");
const outdir = join(root, "dist", "bin");
const bundle = join(outdir, "gitctx.cjs");
// Both files are CommonJS: Node 20 has a code cache only for scripts, and a CommonJS entry also spares Node its
// ES module loader. src/cli/version.ts and the parser's loader find files relative to their own module.
const common = {
  bundle: true,
  format: "cjs",
  platform: "node",
  target: "node20",
  define: { "import.meta.url": "gitctxModuleUrl" },
  banner: { js: 'var gitctxModuleUrl = require("node:url").pathToFileURL(__filename).href;' },
  logLevel: "warning",
};

await rm(outdir, { recursive: true, force: true });
await build({
  ...common,
  entryPoints: [join(root, "dist", "cli", "start.js")],
  outfile: bundle,
  // Found at run time: the demo's optional peer dependencies are the user's to install, and the tokenizer's
  // tables (4 MB) would be read by every call though only the snapshot counts tokens.
  external: ["@anthropic-ai/sdk", "openai", "ai", "gpt-tokenizer", "gpt-tokenizer/*"],
  // A script run through `vm` has no way to `import()` (Node 20 needs an experimental flag): every dynamic
  // import becomes a `require`, of a bundled module or of the packages above.
  supported: { "dynamic-import": false },
  // Without comments and indentation the bundle is a third smaller, so faster to read, and pure ASCII.
  minifyWhitespace: true,
  charset: "ascii",
});
const content = readFileSync(bundle);
// src/cli/bin.ts decodes the bundle as Latin-1, which is exact only for ASCII.
const nonAscii = content.findIndex((byte) => byte > 0x7f);
if (nonAscii !== -1) throw new Error(`${bundle}: byte ${nonAscii} is not ASCII; src/cli/bin.ts reads the bundle as Latin-1`);

await build({
  ...common,
  entryPoints: [join(root, "dist", "cli", "bin.js")],
  outfile: join(outdir, "gitctx.js"),
  define: { ...common.define, GITCTX_BUNDLE_HASH: JSON.stringify(createHash("sha256").update(content).digest("hex").slice(0, 32)) },
});
// The package is "type": "module"; this folder's .js file is CommonJS.
writeFileSync(join(outdir, "package.json"), `${JSON.stringify({ type: "commonjs" })}\n`);

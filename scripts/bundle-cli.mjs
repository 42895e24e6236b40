/**
 * Bundles the `gitctx` command (tsc's dist/cli/main.js and everything it imports, dependencies included) into
 * dist/bin/: a fresh Node process then reads a few files instead of about 220 modules (zod alone is 95), which
 * was most of the start-up time of every CLI call (`npm run bench`, classify section). Each command's own
 * modules stay in their own chunk, loaded when that command runs, as the dynamic imports of src/cli/ intend.
 *
 * The library (dist/index.js and the adapters) is not bundled: an application loads it once.
 */
import { build } from "esbuild";
import { rm } from "node:fs/promises";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";

const root = join(dirname(fileURLToPath(import.meta.url)), "..");
const outdir = join(root, "dist", "bin");
await rm(outdir, { recursive: true, force: true });
await build({
  entryPoints: { gitctx: join(root, "dist", "cli", "main.js") },
  outdir,
  bundle: true,
  splitting: true,
  format: "esm",
  platform: "node",
  target: "node20",
  // The optional peer dependencies of the demo are the user's to install: found at run time, or not.
  external: ["@anthropic-ai/sdk", "openai", "ai"],
  // Bundled CommonJS dependencies call `require` for Node's own modules, which an ES module lacks.
  banner: { js: 'import { createRequire as gitctxCreateRequire } from "node:module";\nconst require = gitctxCreateRequire(import.meta.url);' },
  // Flat beside the entry: src/cli/version.ts finds package.json two directories up from whichever file holds it.
  chunkNames: "[name]-[hash]",
  logLevel: "warning",
});

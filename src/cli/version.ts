import { readFileSync } from "node:fs";

/**
 * The version of the installed package, read from its package.json at run time. The path is the same from
 * `dist/bin/` (the bundled command and its chunks), `dist/cli/` (built) and `src/cli/` (source): two levels up is
 * the package root.
 */
export function packageVersion(): string {
  const manifest = JSON.parse(readFileSync(new URL("../../package.json", import.meta.url), "utf8")) as { version?: unknown };
  if (typeof manifest.version !== "string") throw new Error("gitctx's package.json has no version");
  return manifest.version;
}

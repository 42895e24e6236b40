/**
 * Loads the shell parser (`mvdan-sh`, 1.5 MB of transpiled Go) through V8's code cache (`code-cache.ts`), so that
 * a hook process, which parses one line and exits, does not compile it from scratch every time: about 50 ms
 * become about 20. The cache is named after the parser package's version.
 */
import { readFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { parserModulePath, setParserModuleLoader } from "../safety/shell.js";
import { requireWithCodeCache } from "./code-cache.js";

export function useParserCodeCache(): void {
  setParserModuleLoader((defaultLoad) => {
    try {
      const file = parserModulePath();
      const manifest = JSON.parse(readFileSync(join(dirname(file), "package.json"), "utf8")) as { version?: string };
      return requireWithCodeCache(file, { stem: "mvdan-sh", identity: manifest.version ?? "unknown" });
    } catch {
      return defaultLoad();
    }
  });
}

/**
 * What a session keeps between its calls at the git layer, each part invalidated by name: the config scans
 * (filter drivers, neutralised settings, gitlinks), the private index copies, the state-file checks and what
 * `packed-refs` was found to hold. Nothing here is shared between
 * sessions, and `close()` leaves nothing behind.
 */
import { ConfigScanCache } from "./config-scan.js";
import { PrivateIndexCopies } from "./private-index.js";
import { PackedRefAnswers } from "./refs.js";
import type { GitRunner } from "./run.js";
import { StateFileChecks } from "./state-files.js";
import { UserConfigCache } from "./user-config.js";

export const GIT_CACHE_NAMES = ["configScan", "userConfig", "privateIndex", "stateFiles"] as const;
export type GitCacheName = (typeof GIT_CACHE_NAMES)[number];

export class GitCaches {
  readonly configScans = new ConfigScanCache();
  readonly stateFiles = new StateFileChecks();
  readonly userConfig = new UserConfigCache();
  /** Kept with the state-file checks (and invalidated with them): what `packed-refs` holds, asked by name. */
  readonly packedRefs = new PackedRefAnswers();
  readonly indexCopies: PrivateIndexCopies;

  constructor(runner: GitRunner) {
    this.indexCopies = new PrivateIndexCopies(() => runner.scratchDirectory());
  }

  invalidate(name: GitCacheName): void {
    if (name === "configScan") this.configScans.invalidate();
    else if (name === "stateFiles") {
      this.stateFiles.invalidate();
      this.packedRefs.invalidate();
    } else if (name === "userConfig") this.userConfig.invalidate();
    else this.indexCopies.invalidate();
  }
}

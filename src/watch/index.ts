/** File watching (L3): classified events of what changed under an agent's feet, and "changed since you read it". */
export { createWatcher, commonDirOf, defaultMaxWatches } from "./watcher.js";
export type { Watcher, WatcherOptions, WatchListener } from "./watcher.js";
export { gitIgnoredDirectories, type IgnoredDirectories } from "./ignored.js";
export { classifyPath } from "./classify.js";
export { ReadVersions } from "./read-versions.js";
export type { FileVersion, VersionCheck, VersionStatus, RecordOptions } from "./read-versions.js";
export { renderWatchEvent, renderWatchChanges, renderWatcherStatus, renderDegraded } from "./render.js";
export { WATCH_CATEGORIES } from "./types.js";
export type * from "./types.js";

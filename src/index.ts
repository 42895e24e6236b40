/** The public surface of gitctx. Everything not exported here is internal. */
export { createToolbox, listTools } from "./session/session.js";
export type { Toolbox, ToolboxOptions, ExecuteOptions } from "./session/session.js";
export { searchTools } from "./tools/catalog.js";
export type { ToolInfo } from "./tools/catalog.js";
export type { ToolName, ToolInput, ToolData } from "./tools/registry.js";
export type { CacheName, Requirement, InstructionSources } from "./tools/tool.js";
export type { SessionEvents, SessionEventName, SessionListener, InstructionsLoadedEvent, FileChangedEvent } from "./session/events.js";
export type { SessionWatch, SessionWatchOptions } from "./session/watch-handle.js";
export { ERROR_CODES, GitctxError, formatError, renderHint, LIBRARY_SETTINGS } from "./errors.js";
export type { ErrorCode, ToolErrorInfo, Hint, SettingRef, SettingWording, ToolboxSetting } from "./errors.js";
export { PERMISSION_MODES } from "./types.js";
export type { ToolResult, PermissionMode, Authorize } from "./types.js";
export type { GitStatusData } from "./tools/git-status.js";
export type { GitDiffData, DiffMode } from "./tools/git-diff.js";
export type { GitLogData } from "./tools/git-log.js";
export type { GitShowData, ShowCommitData, ShowFileData, ShowFormat, ShowObjectData } from "./tools/git-show.js";
export type { GitBlameData } from "./tools/git-blame.js";
export type { StatusEntry, StatusKind, BranchInfo, StatusCounts } from "./git/parse/status.js";
export type { DiffFileSummary, DiffStatus, DiffTotals } from "./git/parse/diff.js";
export type { CommitInfo, Person } from "./git/parse/log.js";
export type { BlameLine, BlameCommit } from "./git/parse/blame.js";
export type { PatchWindow } from "./diff/read-patch.js";
export { renderSnapshot, countTokens, CONTEXT_SECTIONS, DEFAULT_CONTEXT_BUDGET, BASE_REVISION } from "./context/index.js";
export { snapshot, contextText } from "./session/snapshot.js";
export type { SnapshotOptions, ContextTextOptions } from "./session/snapshot.js";
export type {
  RepositorySnapshot,
  ContextSection,
  Part,
  RenderOptions,
  RenderedContext,
  OmittedSection,
  BaseBranch,
  BaseRule,
  OwnUpstream,
  CurrentBranch,
  CommitSummary,
  StashEntry,
  Operation,
  OperationKind,
  OperationSection,
  IndexLock,
  Remote,
  Worktree,
  Submodule,
  StatusSection,
  UntrackedFiles,
  UntrackedDirectory,
  HiddenFiles,
  SnapshotBranch,
} from "./context/index.js";
export type { GitContextData } from "./tools/git-context.js";
export type { GitChangesData } from "./tools/git-changes.js";
export type { LoadInstructionsData, LoadedInstructionFile, LoadedRuleInfo, OnRequestRuleData } from "./tools/load-instructions.js";
export { classifyCommand, mayRunGit, stricter, READ_SUBCOMMANDS } from "./safety/classify.js";
export { configKeyRule, settingDisabled, CONFIG_KEYS } from "./safety/config-keys.js";
export type { ConfigKeyRule, SettingSource, Trigger } from "./safety/config-keys.js";
export type { Classification, ClassifyOptions, Invocation, InvocationKind, Verdict, RepositoryFacts, ExecutableSetting } from "./safety/classify.js";
export { classifyCommandInRepository, inspectRepository } from "./guard/repository-check.js";
export type { InspectOptions, RepositoryClassifyOptions } from "./guard/repository-check.js";
export { isGitInternalPath, checkIndexLock } from "./guard/git-paths.js";
export type { GitInternalPathOptions } from "./guard/git-paths.js";
export { DEFAULT_STALE_LOCK_MS } from "./git/index-lock.js";
export type { IndexLockOptions } from "./git/index-lock.js";
export type { RepositoryPaths, RepositoryLayout } from "./git/discover.js";
export type { UserConfigEnvironment } from "./git/run.js";
export type { LfsReading } from "./git/lfs.js";
export { CARRIED_SETTINGS } from "./git/user-config.js";
export {
  loadInstructions,
  InstructionsCache,
  isInstructionsResultCurrent,
  INSTRUCTION_FORMATS,
  DEFAULT_INSTRUCTION_FORMATS,
  INSTRUCTION_LAYERS,
  DEFAULT_INSTRUCTIONS_BUDGET,
  DEFAULT_MAX_IMPORT_DEPTH,
  DEFAULT_MAX_INSTRUCTION_BYTES,
} from "./instructions/index.js";
export type {
  LoadInstructionsOptions,
  InstructionsResult,
  InstructionFile,
  InstructionCandidate,
  CandidateStatus,
  InstructionScope,
  InstructionLayer,
  LoadReason,
  RuleInfo,
  RuleActivation,
  CutFile,
  OnRequestRule,
  WatchedPath,
  InstructionFormat,
  InstructionsCacheOptions,
  CachedLoadOptions,
  InstructionsCacheStats,
} from "./instructions/index.js";
export {
  createWatcher,
  commonDirOf,
  defaultMaxWatches,
  gitIgnoredDirectories,
  classifyPath,
  ReadVersions,
  renderWatchEvent,
  renderWatchChanges,
  renderWatcherStatus,
  renderDegraded,
  WATCH_CATEGORIES,
} from "./watch/index.js";
export type {
  Watcher,
  WatcherOptions,
  WatchListener,
  IgnoredDirectories,
  FileVersion,
  VersionCheck,
  VersionStatus,
  RecordOptions,
  WatchEvent,
  WatchCategory,
  WatchEventKind,
  FileEventKind,
  GitEventKind,
  WatcherEventKind,
  WatchLocation,
  WatchChanges,
  WatcherStatus,
  WatcherState,
  DegradedState,
  GitEventDetails,
  RefMove,
  BulkCounts,
  OperationName,
} from "./watch/index.js";
export { createWorktree, removeWorktree, listWorktrees, cleanupWorktrees } from "./worktree/library.js";
export type {
  WorktreeOptions,
  CreateWorktreeOptions,
  RemoveWorktreeOptions,
  ListWorktreesOptions,
  CleanupWorktreesOptions,
} from "./worktree/library.js";
export { DEFAULT_WORKTREES_DIRECTORY, DEFAULT_SYMLINK_DIRECTORIES } from "./worktree/layout.js";
export type { WorktreeSettings } from "./worktree/layout.js";
export type { CreatedWorktree } from "./worktree/create.js";
export type { RemovedWorktree, WorktreeLosses, LostCommit } from "./worktree/remove.js";
export { DEFAULT_STALE_DAYS } from "./worktree/list.js";
export type { WorktreeInfo, CleanupReport } from "./worktree/list.js";
export type { FilterReport, SkippedHook, SubmoduleCheckout } from "./worktree/checkout.js";
export type { WorktreeLink } from "./worktree/record.js";
export type { EnterWorktreeData } from "./tools/enter-worktree.js";
export type { ExitWorktreeData } from "./tools/exit-worktree.js";

/** The public surface of gitctx. Everything not exported here is internal. */
export { createToolbox, searchTools } from "./tools/toolbox.js";
export type { Toolbox, ToolboxOptions, ToolInfo, ExecuteOptions } from "./tools/toolbox.js";
export { ERROR_CODES, GitctxError } from "./errors.js";
export type { ErrorCode, ToolErrorInfo } from "./errors.js";
export { PERMISSION_MODES } from "./types.js";
export type { ToolResult, PermissionMode, Authorize } from "./types.js";
export type { GitStatusData } from "./tools/git-status.js";
export type { GitDiffData, DiffMode } from "./tools/git-diff.js";
export type { GitLogData } from "./tools/git-log.js";
export type { GitShowData, ShowCommitData, ShowFileData, ShowFormat } from "./tools/git-show.js";
export type { GitBlameData } from "./tools/git-blame.js";
export type { StatusEntry, StatusKind, BranchInfo, StatusCounts } from "./git/parse/status.js";
export type { DiffFileSummary, DiffStatus, DiffTotals } from "./git/parse/diff.js";
export type { CommitInfo, Person } from "./git/parse/log.js";
export type { BlameLine, BlameCommit } from "./git/parse/blame.js";
export type { PatchWindow } from "./diff/read-patch.js";
export { snapshot, renderSnapshot, contextText, countTokens, CONTEXT_SECTIONS, DEFAULT_CONTEXT_BUDGET, BASE_REVISION } from "./context/index.js";
export type {
  RepositorySnapshot, SnapshotOptions, ContextTextOptions, ContextSection, Part, RenderOptions, RenderedContext, OmittedSection,
  BaseBranch, BaseRule, CurrentBranch, CommitSummary, StashEntry, Operation, OperationKind, OperationSection, IndexLock, Remote,
  Worktree, Submodule, StatusSection, UntrackedFiles, HiddenFiles,
} from "./context/index.js";
export type { GitContextData } from "./tools/git-context.js";
export { classifyCommand, mayRunGit, stricter, READ_SUBCOMMANDS } from "./safety/classify.js";
export { configKeyRule, settingDisabled, CONFIG_KEYS } from "./safety/git-tables.js";
export type { ConfigKeyRule, SettingSource, Trigger } from "./safety/git-tables.js";
export type { Classification, ClassifyOptions, Invocation, InvocationKind, Verdict, RepositoryFacts, ExecutableSetting } from "./safety/classify.js";
export { classifyCommandInRepository, inspectRepository, hardenedArgv } from "./safety/repository-check.js";
export type { InspectOptions, RepositoryClassifyOptions } from "./safety/repository-check.js";
export { isGitInternalPath, checkIndexLock, DEFAULT_STALE_LOCK_MS } from "./safety/git-paths.js";
export type { GitInternalPathOptions, IndexLockState, IndexLockOptions } from "./safety/git-paths.js";

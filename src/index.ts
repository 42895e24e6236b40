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

/** The instruction loader's public surface (re-exported from `src/index.ts`). */
export { loadInstructions } from "./load.js";
export { DEFAULT_INSTRUCTIONS_BUDGET, DEFAULT_MAX_IMPORT_DEPTH, DEFAULT_MAX_INSTRUCTION_BYTES } from "./defaults.js";
export { InstructionsCache, isInstructionsResultCurrent } from "./cache.js";
export type { InstructionsCacheOptions, CachedLoadOptions, InstructionsCacheStats } from "./cache.js";
export { INSTRUCTION_FORMATS, DEFAULT_INSTRUCTION_FORMATS } from "./formats.js";
export type { InstructionFormat } from "./formats.js";
export { INSTRUCTION_LAYERS } from "./types.js";
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
  CutFile,
  OnRequestRule,
  WatchedPath,
} from "./types.js";
export type { RuleActivation } from "./parse.js";

/** Repository context (L3): the parallel snapshot of a repository and its rendering for a system prompt. */
export * from "./snapshot.js";
export * from "./render.js";
export { countTokens } from "./tokens.js";
export { redactUrl } from "./redact.js";
export { findBaseBranch, requireBaseMergeBase, BASE_CANDIDATES, BASE_REVISION } from "./base-branch.js";

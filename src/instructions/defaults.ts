/**
 * The loader's defaults, apart from the loader itself: tools and faces that only describe them need not load
 * the Markdown, YAML and glob parsers the loader uses.
 */
export const DEFAULT_INSTRUCTIONS_BUDGET = 10_000;
export const DEFAULT_MAX_IMPORT_DEPTH = 4;
export const DEFAULT_MAX_INSTRUCTION_BYTES = 4 * 1024 * 1024;

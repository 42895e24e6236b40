/**
 * The instruction loader: finds the instruction files of every agent asked for, layer by layer (managed, user,
 * above the repository when asked, the repository's top level down to the root, then the directories below the
 * root that hold the given paths), follows their `@` imports, applies rules to the given paths, and renders one
 * text within a token budget. Every path it looks at is accounted for: loaded, or why not.
 *
 * Reading is confined: a file is read only when it is a regular file of a sane size inside an allowed directory
 * (the project, the managed directory, the user's agent directories, and what the caller allows); symlinks and
 * imports that lead elsewhere are refused before anything is opened.
 */
import { basename, dirname, isAbsolute, join, relative, resolve, sep } from "node:path";
import { loadTokenCounter, type TokenCounter } from "../context/tokens.js";
import { sensitiveReason } from "../context/untracked.js";
import { GitctxError } from "../errors.js";
import { showInline, showPath } from "../text.js";
import {
  DEFAULT_INSTRUCTION_FORMATS,
  DIRECTORY_FILES,
  DIRECTORY_RULES,
  INSTRUCTION_FORMATS,
  USER_DIRECTORIES,
  type FileSpec,
  type InstructionFormat,
  type RuleDirSpec,
} from "./formats.js";
import { describeType, FileAccess, type EntryType, type LoaderMemo, type ReadOutcome } from "./files.js";
import { compileGlob } from "./glob.js";
import { compileGlobs, parseInstructions, type ParsedInstructions } from "./parse.js";
import { renderInstructions, type ImportNode, type RenderUnit } from "./render.js";
import type {
  CandidateStatus,
  InstructionCandidate,
  InstructionFile,
  InstructionLayer,
  InstructionScope,
  InstructionsResult,
  LoadInstructionsOptions,
  LoadReason,
} from "./types.js";
import { INSTRUCTION_LAYERS } from "./types.js";

import { DEFAULT_INSTRUCTIONS_BUDGET, DEFAULT_MAX_IMPORT_DEPTH, DEFAULT_MAX_INSTRUCTION_BYTES } from "./defaults.js";
/** The largest maxFileBytes a caller may set. */
const MAX_INSTRUCTION_FILE_BYTES = 256 * 1024 * 1024;
/** Nesting of rule directories followed (symlink loops are cut by real path before this). */
const MAX_RULE_DIR_DEPTH = 16;

/** Loads the instruction files for a workspace; see `LoadInstructionsOptions`. */
export function loadInstructions(options: LoadInstructionsOptions): Promise<InstructionsResult> {
  return loadInstructionsWith(options, {});
}

export interface LoaderInternals {
  /** What earlier loads read, reused while signatures match (the cache passes its own). */
  memo?: LoaderMemo;
  settleMs?: number;
}

/** `loadInstructions` with a memo of earlier reads: what `InstructionsCache` calls. */
export async function loadInstructionsWith(options: LoadInstructionsOptions, internals: LoaderInternals): Promise<InstructionsResult> {
  const access = new FileAccess(internals.memo, internals.settleMs);
  const plan = await makePlan(options, access);
  const loader = new Loader(plan, access);
  return loader.run();
}

// ---- options ----

interface GivenPath {
  /** POSIX, relative to the root. */
  display: string;
  absolute: string;
}

interface Plan {
  root: string;
  top: string;
  formats: InstructionFormat[];
  paths: GivenPath[];
  budget: number;
  explain: boolean;
  home: string | undefined;
  homeAliases: string[];
  managed: string | undefined;
  excludes: Array<{ glob: string; test: (path: string) => boolean }>;
  /** Where imports and symlinks may lead (real and given forms). */
  allowedRoots: string[];
  walkAbove: boolean;
  maxDepth: number;
  maxBytes: number;
}

function invalid(message: string, hint?: string): GitctxError {
  return new GitctxError("invalid_input", message, hint);
}

function requireAbsolute(name: string, value: unknown): string {
  if (typeof value !== "string" || value === "" || value.includes("\u0000")) throw invalid(`${name} must be a non-empty path string.`);
  if (!isAbsolute(value)) throw invalid(`${name} must be an absolute path, got ${JSON.stringify(value)}.`, `Pass ${name} as an absolute path.`);
  return resolve(value);
}

async function makePlan(options: LoadInstructionsOptions, access: FileAccess): Promise<Plan> {
  if (typeof options !== "object" || options === null) throw invalid("loadInstructions needs an options object with at least root.");
  const givenRoot = requireAbsolute("root", options.root);
  const formats = checkFormats(options.formats);
  const budget = options.budget ?? DEFAULT_INSTRUCTIONS_BUDGET;
  if (typeof budget !== "number" || Number.isNaN(budget) || budget < 1 || (Number.isFinite(budget) && !Number.isInteger(budget))) {
    throw invalid(
      `budget must be a positive whole number of tokens, got ${JSON.stringify(options.budget)}.`,
      "Pass a budget such as 4000, or leave it out for the default of 10,000.",
    );
  }
  const maxDepth = checkCount("maxImportDepth", options.maxImportDepth, DEFAULT_MAX_IMPORT_DEPTH, 0);
  const maxBytes = checkCount("maxFileBytes", options.maxFileBytes, DEFAULT_MAX_INSTRUCTION_BYTES, 1);
  // Its text must fit one string (V8 holds at most about 512 M characters): a file is read whole, then decoded.
  if (maxBytes > MAX_INSTRUCTION_FILE_BYTES) throw invalid(`maxFileBytes must be at most ${MAX_INSTRUCTION_FILE_BYTES} (256 MiB), got ${maxBytes}.`);

  const root = await access.realpath(givenRoot);
  if (root === undefined) throw new GitctxError("path_not_found", `The root ${givenRoot} does not exist.`, "Pass the workspace directory as root.");
  const rootType = await access.typeOf(root);
  if (rootType?.type !== "directory") throw invalid(`The root ${givenRoot} is not a directory.`, "Pass the workspace directory as root.");
  let top = root;
  if (options.topLevel !== undefined) {
    const givenTop = requireAbsolute("topLevel", options.topLevel);
    const realTop = await access.realpath(givenTop);
    if (realTop === undefined)
      throw new GitctxError("path_not_found", `The topLevel ${givenTop} does not exist.`, "Pass the repository's top level, or leave it out.");
    if (!isInside(root, realTop))
      throw invalid(`The root ${givenRoot} is not inside topLevel ${givenTop}.`, "topLevel is the top level of the repository that holds the root.");
    top = realTop;
  }

  const paths: GivenPath[] = [];
  const seenPaths = new Set<string>();
  for (const given of options.paths ?? []) {
    if (typeof given !== "string" || given === "" || given.includes("\u0000")) throw invalid("Every entry of paths must be a non-empty path string.");
    const absolute = resolve(root, given);
    if (!isInside(absolute, root)) {
      throw new GitctxError(
        "path_outside_workspace",
        `The path ${JSON.stringify(given)} is outside the workspace ${root}.`,
        "Give paths relative to the workspace root, inside it.",
      );
    }
    if (seenPaths.has(absolute)) continue;
    seenPaths.add(absolute);
    paths.push({ display: (below(absolute, root) as string) || ".", absolute });
  }

  let home: string | undefined;
  const homeAliases: string[] = [];
  if (options.home !== undefined) {
    const givenHome = requireAbsolute("home", options.home);
    homeAliases.push(givenHome);
    home = (await access.realpath(givenHome)) ?? givenHome;
    if (home !== givenHome) homeAliases.push(home);
  }
  let managed: string | undefined;
  const allowedRoots = [top];
  if (options.managedDir !== undefined) {
    const givenManaged = requireAbsolute("managedDir", options.managedDir);
    managed = (await access.realpath(givenManaged)) ?? givenManaged;
    allowedRoots.push(givenManaged, managed);
  }
  if (home !== undefined) {
    for (const spec of USER_DIRECTORIES) {
      if (!formats.includes(spec.format)) continue;
      const lexical = join(home, spec.dir);
      allowedRoots.push(lexical);
      const real = await access.realpath(lexical);
      if (real !== undefined && real !== lexical) allowedRoots.push(real);
    }
  }
  for (const dir of options.allowedImportDirs ?? []) {
    const given = requireAbsolute("allowedImportDirs entry", dir);
    allowedRoots.push(given);
    const real = await access.realpath(given);
    if (real !== undefined && real !== given) allowedRoots.push(real);
  }

  const excludes = (options.excludes ?? []).map((glob) => {
    if (typeof glob !== "string" || glob.trim() === "") throw invalid("Every entry of excludes must be a non-empty glob.");
    let test: (path: string) => boolean;
    try {
      test = compileGlob(glob);
    } catch (error) {
      throw invalid(`The exclude glob ${JSON.stringify(glob)} is invalid: ${(error as Error).message}.`);
    }
    return { glob, test };
  });

  return {
    root,
    top,
    formats,
    paths,
    budget,
    explain: options.explain === true,
    home,
    homeAliases,
    managed,
    excludes,
    allowedRoots: [...new Set(allowedRoots)],
    walkAbove: options.walkAboveTopLevel === true,
    maxDepth,
    maxBytes,
  };
}

function checkFormats(value: unknown): InstructionFormat[] {
  if (value === undefined) return [...DEFAULT_INSTRUCTION_FORMATS];
  if (!Array.isArray(value) || value.length === 0)
    throw invalid("formats must be a non-empty list.", `Choose among ${INSTRUCTION_FORMATS.join(", ")}.`);
  for (const format of value) {
    if (!(INSTRUCTION_FORMATS as readonly unknown[]).includes(format)) {
      throw invalid(`Unknown instruction format ${JSON.stringify(format)}.`, `Choose among ${INSTRUCTION_FORMATS.join(", ")}.`);
    }
  }
  // Table order, not the caller's: the prompt order must not depend on how the list was written.
  return INSTRUCTION_FORMATS.filter((format) => value.includes(format));
}

function checkCount(name: string, value: unknown, fallback: number, minimum: number): number {
  if (value === undefined) return fallback;
  if (typeof value !== "number" || !Number.isInteger(value) || value < minimum)
    throw invalid(`${name} must be a whole number of at least ${minimum}.`);
  return value;
}

/** Both absolute and normalised (every path here comes from resolve, join or realpath): a prefix test suffices. */
function isInside(path: string, dir: string): boolean {
  if (path === dir) return true;
  return path.startsWith(dir.endsWith(sep) ? dir : `${dir}${sep}`);
}

/** `path` relative to `dir` when inside it (POSIX, "" for `dir` itself), else `undefined`: without path.relative's cost. */
function below(path: string, dir: string): string | undefined {
  if (path === dir) return "";
  const prefix = dir.endsWith(sep) ? dir : `${dir}${sep}`;
  return path.startsWith(prefix) ? posix(path.slice(prefix.length)) : undefined;
}

/** `dir` + a clean relative POSIX name: what path.join would give, without its cost on hot paths. */
function childPath(dir: string, name: string): string {
  const native = sep === "/" ? name : name.split("/").join(sep);
  return dir.endsWith(sep) ? `${dir}${native}` : `${dir}${sep}${native}`;
}

function posix(path: string): string {
  return sep === "/" ? path : path.split(sep).join("/");
}

// ---- the load ----

/** One directory to look in, and how what is found there counts. */
interface DirectoryTask {
  dir: string;
  layer: InstructionLayer;
  reason: LoadReason;
  files: readonly FileSpec[];
  rules: readonly RuleDirSpec[];
  /** Directory the globs of its rules are relative to. */
  ruleBase: string;
  /** The project's top level: the only place for Copilot's `.github/` and `.cursorrules`. */
  isTop: boolean;
}

/** A path looked at in a directory, before it is read. */
interface Slot {
  format: InstructionFormat;
  scope: InstructionScope;
  layer: InstructionLayer;
  absolute: string;
  /** As shown; computed on first use (most slots are absences nobody asks about without explain). */
  readonly display: string;
  /** The directory it was looked for in, as shown. */
  readonly directory: string;
  reason: LoadReason;
  managed: boolean;
  rule: { spec: RuleDirSpec; base: string } | undefined;
  overrides: string | undefined;
  local: boolean;
  /** What the listing said, or why the path could not be looked at. */
  found: { kind: "entry"; type: EntryType; real: string } | { kind: "absent"; status: CandidateStatus; detail: string };
  outcome?: Resolved | Promise<Resolved>;
}

interface ReadValue {
  parsed: ParsedInstructions;
  tokens: number;
}

type Resolved =
  | { kind: "read"; value: ReadValue; bytes: number; identity: string; real: string }
  | { kind: "refused"; status: CandidateStatus; detail: string };

interface DirectoryGroup {
  task: DirectoryTask;
  slots: Slot[];
}

class Loader {
  private readonly listings = new Map<string, Promise<ReadonlyMap<string, EntryType> | undefined>>();
  private readonly reads = new Map<string, Promise<Resolved>>();
  private counter: Promise<TokenCounter> | undefined;
  private readonly candidates: InstructionCandidate[] = [];
  private readonly refused: InstructionCandidate[] = [];
  private readonly files: InstructionFile[] = [];
  private readonly seen = new Map<string, InstructionFile>();
  private readonly units: RenderUnit[] = [];
  private readonly onRequest: InstructionsResult["onRequest"] = [];
  private readonly relativePaths = new Map<string, Array<{ display: string; rel: string }>>();
  private readonly specCache = new Map<
    string,
    { fileSpecs: readonly FileSpec[]; ruleSpecs: readonly RuleDirSpec[]; firstSegments: readonly string[] }
  >();

  constructor(
    private readonly plan: Plan,
    private readonly access: FileAccess,
  ) {}

  async run(): Promise<InstructionsResult> {
    const { plan } = this;
    if (plan.explain && plan.home === undefined) {
      // "Why is my ~/.claude/CLAUDE.md not loaded?" has an answer too.
      for (const spec of USER_DIRECTORIES) {
        if (!plan.formats.includes(spec.format)) continue;
        for (const file of spec.files) {
          this.candidates.push({
            path: `~/${spec.dir}/${file.name}`,
            absolutePath: "",
            format: spec.format,
            scope: "user",
            layer: "user",
            status: "skipped",
            detail: "no home directory was given (option home)",
          });
        }
      }
    }
    const fixed = this.fixedTasks();
    const groups = await Promise.all([...fixed.map((task) => this.scan(task)), this.subdirectoryGroups()]);
    const ordered = [...(groups.slice(0, -1) as DirectoryGroup[]), ...(groups.at(-1) as DirectoryGroup[])];
    for (const group of ordered) {
      for (const slot of group.slots) {
        // An absence needs no promise (with explain, a big tree has thousands of them).
        slot.outcome =
          slot.found.kind === "absent" ? { kind: "refused", status: slot.found.status, detail: slot.found.detail } : this.resolveSlot(slot);
      }
    }
    for (const group of ordered) await this.assemble(group);

    const count = await this.tokenCounter();
    const rendered = renderInstructions({
      units: this.units,
      onRequest: this.onRequest,
      budget: plan.budget,
      formats: plan.formats,
      count,
    });
    const cutPaths = new Set(rendered.cut.flatMap((cut) => [cut.path, ...cut.imports]));
    for (const file of this.files) if (cutPaths.has(file.path)) file.included = false;
    for (const candidate of this.candidates) {
      if (candidate.status === "loaded" && cutPaths.has(candidate.path)) {
        candidate.status = "cut";
        candidate.detail = `${candidate.detail}; left out to fit the budget of ${plan.budget} tokens`;
      }
    }
    const byLayer = Object.fromEntries(INSTRUCTION_LAYERS.map((layer) => [layer, 0])) as Record<InstructionLayer, number>;
    const byScope = Object.fromEntries(SCOPES.map((scope) => [scope, 0])) as Record<InstructionScope, number>;
    for (const file of this.files) {
      byLayer[file.layer] += file.tokens;
      byScope[file.scope] += file.tokens;
    }
    const result: InstructionsResult = {
      text: rendered.text,
      root: plan.root,
      topLevel: plan.top,
      formats: plan.formats,
      paths: plan.paths.map((path) => path.display),
      files: this.files,
      cut: rendered.cut,
      getAll: rendered.getAll,
      onRequest: this.onRequest,
      refused: this.refused,
      tokens: {
        rendered: rendered.tokens,
        full: rendered.fullTokens,
        budget: Number.isFinite(plan.budget) ? plan.budget : null,
        byLayer,
        byScope,
      },
      watched: this.access.watchList(),
      settled: this.access.settled,
      operations: { ...this.access.operations },
    };
    if (plan.explain) {
      result.candidates = this.candidates;
      result.explain = explainText(this.candidates, plan);
    }
    return result;
  }

  private tokenCounter(): Promise<TokenCounter> {
    this.counter ??= loadTokenCounter();
    return this.counter;
  }

  // ---- where to look ----

  private fixedTasks(): DirectoryTask[] {
    const { plan } = this;
    const tasks: DirectoryTask[] = [];
    const start: LoadReason = { kind: "session_start" };
    if (plan.managed !== undefined) {
      tasks.push({
        dir: plan.managed,
        layer: "managed",
        reason: start,
        files: DIRECTORY_FILES.filter((spec) => spec.local !== true && spec.topLevelOnly !== true),
        rules: DIRECTORY_RULES.filter((spec) => spec.topLevelOnly !== true),
        ruleBase: plan.top,
        isTop: false,
      });
    }
    if (plan.home !== undefined) {
      for (const spec of USER_DIRECTORIES) {
        if (!plan.formats.includes(spec.format)) continue;
        tasks.push({
          dir: join(plan.home, spec.dir),
          layer: "user",
          reason: start,
          files: spec.files,
          rules: spec.rules,
          ruleBase: plan.top,
          isTop: false,
        });
      }
    }
    if (plan.walkAbove) {
      const above: string[] = [];
      for (let dir = dirname(plan.top); ; dir = dirname(dir)) {
        above.unshift(dir);
        if (dirname(dir) === dir) break;
      }
      if (plan.top === dirname(plan.top)) above.length = 0;
      for (const dir of above) {
        tasks.push({
          dir,
          layer: "ancestor",
          reason: start,
          files: DIRECTORY_FILES.filter((spec) => spec.topLevelOnly !== true),
          rules: [],
          ruleBase: dir,
          isTop: false,
        });
      }
    }
    const chain = [plan.root];
    for (let dir = plan.root; dir !== plan.top; ) {
      dir = dirname(dir);
      chain.unshift(dir);
    }
    for (const dir of chain) {
      tasks.push({ dir, layer: "project", reason: start, files: DIRECTORY_FILES, rules: DIRECTORY_RULES, ruleBase: dir, isTop: dir === plan.top });
    }
    return tasks;
  }

  /** The directories below the root that hold a given path (and a given path that is a directory). */
  private async subdirectoryGroups(): Promise<DirectoryGroup[]> {
    const { plan } = this;
    interface Need {
      children: Map<string, Need>;
      forPath: string;
    }
    const rootNeed: Need = { children: new Map(), forPath: "" };
    for (const path of plan.paths) {
      const parts = (below(path.absolute, plan.root) as string).split("/").filter((part) => part !== "");
      let need = rootNeed;
      for (const part of parts) {
        let child = need.children.get(part);
        if (child === undefined) {
          child = { children: new Map(), forPath: path.display };
          need.children.set(part, child);
        }
        need = child;
      }
    }
    const tasks: DirectoryTask[] = [];
    const visit = async (dir: string, need: Need, depth: number): Promise<void> => {
      if (need.children.size === 0) return;
      const listing = await this.list(dir);
      if (listing === undefined) return;
      await Promise.all(
        [...need.children].map(async ([name, child]) => {
          const type = listing.get(name);
          let real = childPath(dir, name);
          if (type === "symlink") {
            const target = await this.access.realpath(real);
            if (target === undefined) return;
            if (!this.allowed(target)) {
              this.record(true, () => ({
                path: this.display(real),
                absolutePath: real,
                format: plan.formats[0] as InstructionFormat,
                scope: "subdirectory",
                layer: "subdirectory",
                status: "outside",
                detail: `a symlink to ${target}, outside the project and the allowed directories: no instruction file below it is read`,
              }));
              return;
            }
            if ((await this.access.typeOf(target))?.type !== "directory") return;
            real = target;
          } else if (type !== "directory") {
            return;
          }
          tasks.push({
            dir: real,
            layer: "subdirectory",
            reason: { kind: "path", path: child.forPath },
            files: DIRECTORY_FILES,
            rules: DIRECTORY_RULES,
            ruleBase: real,
            isTop: false,
          });
          if (depth < 4096) await visit(real, child, depth + 1);
        }),
      );
    };
    await visit(plan.root, rootNeed, 0);
    const displayed = tasks.map((task) => ({ task, key: this.display(task.dir) }));
    displayed.sort((a, b) => depthOf(a.key) - depthOf(b.key) || (a.key < b.key ? -1 : a.key > b.key ? 1 : 0));
    return Promise.all(displayed.map(({ task }) => this.scan(task)));
  }

  private list(dir: string): Promise<ReadonlyMap<string, EntryType> | undefined> {
    let listing = this.listings.get(dir);
    if (listing === undefined) {
      listing = this.access.list(dir);
      this.listings.set(dir, listing);
    }
    return listing;
  }

  /** The slots of one directory: its files in table order, its rules, its local file last. */
  private async scan(task: DirectoryTask): Promise<DirectoryGroup> {
    const { plan } = this;
    const slots: Slot[] = [];
    const { fileSpecs, ruleSpecs, firstSegments } = this.specsFor(task);
    if (fileSpecs.length === 0 && ruleSpecs.length === 0) return { task, slots };
    const listing = await this.list(task.dir);
    if (listing === undefined) {
      // A missing user or managed directory: say so once per file it would hold.
      for (const spec of [...fileSpecs, ...ruleSpecs]) {
        const name = "name" in spec ? spec.name : `${spec.dir}/`;
        const absolute = childPath(task.dir, name);
        slots.push(this.slot(task, spec, absolute, { kind: "absent", status: "missing", detail: `${this.display(task.dir)} does not exist` }));
      }
      return { task, slots };
    }
    // Without explain an absence is reported nowhere: skip a directory that holds none of the names, and make no
    // slot for a name it does not hold (a big tree is mostly such directories).
    if (!plan.explain && !firstSegments.some((name) => listing.has(name))) {
      return { task, slots };
    }
    const keep = (found: Slot["found"]): boolean => plan.explain || found.kind === "entry" || found.status !== "missing";
    const subdirs = new Map<string, Promise<SubdirLookup>>();
    const subdir = (name: string): Promise<SubdirLookup> => {
      let found = subdirs.get(name);
      if (found === undefined) {
        found = this.lookupSubdir(task.dir, listing, name);
        subdirs.set(name, found);
      }
      return found;
    };
    const locals: Slot[] = [];
    for (const spec of fileSpecs) {
      const absolute = childPath(task.dir, spec.name);
      const slash = spec.name.lastIndexOf("/");
      let found: Slot["found"];
      if (slash === -1) {
        found = entryIn(listing, task.dir, spec.name, plan.explain);
      } else {
        const parent = await subdir(spec.name.slice(0, slash));
        found =
          parent.kind === "dir"
            ? entryIn(parent.entries, parent.real, spec.name.slice(slash + 1), plan.explain)
            : { kind: "absent", status: parent.status, detail: parent.detail };
      }
      if (keep(found)) (spec.local === true ? locals : slots).push(this.slot(task, spec, absolute, found));
    }
    for (const spec of ruleSpecs) {
      const [first, ...rest] = spec.dir.split("/") as [string, ...string[]];
      let lookup = await subdir(first);
      let lexical = childPath(task.dir, first);
      for (const part of rest) {
        if (lookup.kind !== "dir") break;
        lexical = childPath(lexical, part);
        lookup = await this.lookupSubdir(lookup.real, lookup.entries, part);
      }
      if (lookup.kind !== "dir") {
        const found: Slot["found"] = { kind: "absent", status: lookup.status, detail: lookup.detail };
        if (keep(found)) slots.push(this.slot(task, spec, childPath(task.dir, spec.dir), found, true));
        continue;
      }
      const found = await this.walkRules(lexical, lookup.real, lookup.entries, spec.suffix, new Set([lookup.real]), 0);
      for (const rule of found) slots.push(this.slot(task, spec, rule.lexical, rule.found));
    }
    slots.push(...locals);
    return { task, slots };
  }

  /** The specs of a task that apply to the formats asked for, worked out once per kind of task. */
  private specsFor(task: DirectoryTask): { fileSpecs: readonly FileSpec[]; ruleSpecs: readonly RuleDirSpec[]; firstSegments: readonly string[] } {
    const key = `${task.layer}:${task.isTop}:${task.files === DIRECTORY_FILES ? "" : task.dir}`;
    let found = this.specCache.get(key);
    if (found === undefined) {
      const applies = (spec: FileSpec | RuleDirSpec): boolean =>
        this.plan.formats.includes(spec.format) && (spec.topLevelOnly !== true || task.isTop);
      const fileSpecs = task.files.filter(applies);
      const ruleSpecs = task.rules.filter(applies);
      const firstSegments = [...new Set([...fileSpecs.map((spec) => firstSegment(spec.name)), ...ruleSpecs.map((spec) => firstSegment(spec.dir))])];
      found = { fileSpecs, ruleSpecs, firstSegments };
      this.specCache.set(key, found);
    }
    return found;
  }

  private async lookupSubdir(parentReal: string, entries: ReadonlyMap<string, EntryType>, name: string): Promise<SubdirLookup> {
    const type = entries.get(name);
    const lexical = childPath(parentReal, name);
    if (type === undefined)
      return {
        kind: "absent",
        status: "missing",
        detail: this.plan.explain ? `${name}/ does not exist${caseHint(entries, name)}` : "does not exist",
      };
    let real = lexical;
    if (type === "symlink") {
      const target = await this.access.realpath(lexical);
      if (target === undefined) return { kind: "absent", status: "missing", detail: `${name} is a broken symlink` };
      if (!this.allowed(target))
        return { kind: "absent", status: "outside", detail: `${name} is a symlink to ${target}, outside the project and the allowed directories` };
      real = target;
    } else if (type !== "directory" && type !== "unknown") {
      return { kind: "absent", status: "not_a_file", detail: `${name} is not a directory` };
    }
    const listing = await this.list(real);
    if (listing === undefined) return { kind: "absent", status: "not_a_file", detail: `${name} is not a directory` };
    return { kind: "dir", real, entries: listing };
  }

  private async walkRules(
    lexical: string,
    real: string,
    entries: ReadonlyMap<string, EntryType>,
    suffix: string,
    visited: Set<string>,
    depth: number,
  ): Promise<Array<{ lexical: string; found: Slot["found"] }>> {
    const names = [...entries.keys()].sort();
    const parts = await Promise.all(
      names.map(async (name): Promise<Array<{ lexical: string; found: Slot["found"] }>> => {
        const type = entries.get(name) as EntryType;
        const childLexical = childPath(lexical, name);
        if (name.endsWith(suffix) && type !== "directory")
          return [{ lexical: childLexical, found: { kind: "entry", type, real: childPath(real, name) } }];
        if (depth >= MAX_RULE_DIR_DEPTH || (type !== "directory" && type !== "symlink")) return [];
        const sub = await this.lookupSubdir(real, entries, name);
        if (sub.kind !== "dir" || visited.has(sub.real)) return [];
        return this.walkRules(childLexical, sub.real, sub.entries, suffix, new Set([...visited, sub.real]), depth + 1);
      }),
    );
    return parts.flat();
  }

  private slot(task: DirectoryTask, spec: FileSpec | RuleDirSpec, absolute: string, found: Slot["found"], ruleDir = false): Slot {
    const isRule = "dir" in spec;
    let scope: InstructionScope;
    if (task.layer === "managed") scope = "managed";
    else if (isRule) scope = "rule";
    else if (task.layer === "user") scope = "user";
    else if (spec.local === true) scope = "local";
    else scope = task.layer;
    const show = (path: string): string => this.display(path);
    let shown: string | undefined;
    return {
      format: spec.format,
      scope,
      layer: task.layer,
      absolute,
      get display(): string {
        shown ??= show(absolute) + (ruleDir ? "/" : "");
        return shown;
      },
      get directory(): string {
        return show(task.dir) || ".";
      },
      reason: task.reason,
      managed: task.layer === "managed",
      rule: isRule && !ruleDir ? { spec, base: task.ruleBase } : undefined,
      overrides: !isRule && spec.overrides !== undefined ? childPath(dirname(absolute), spec.overrides) : undefined,
      local: !isRule && spec.local === true,
      found,
    };
  }

  // ---- reading ----

  private excludedBy(...paths: string[]): string | undefined {
    for (const { glob, test } of this.plan.excludes) if (paths.some((path) => test(path))) return glob;
    return undefined;
  }

  private allowed(real: string): boolean {
    return this.plan.allowedRoots.some((dir) => isInside(real, dir));
  }

  private async resolveSlot(slot: Slot): Promise<Resolved> {
    const { found } = slot;
    if (found.kind === "absent") return { kind: "refused", status: found.status, detail: found.detail };
    if (!slot.managed) {
      const glob = this.excludedBy(slot.absolute, found.real);
      if (glob !== undefined) return { kind: "refused", status: "excluded", detail: `excluded by ${glob}` };
    }
    let real = found.real;
    let type = found.type;
    if (type === "symlink" || type === "unknown") {
      const target = await this.access.realpath(found.real);
      if (target === undefined) return { kind: "refused", status: "missing", detail: "a broken symlink" };
      if (target !== found.real && !this.allowed(target)) {
        return { kind: "refused", status: "outside", detail: `a symlink to ${target}, outside the project and the allowed directories` };
      }
      if (!slot.managed && target !== found.real) {
        const glob = this.excludedBy(target);
        if (glob !== undefined) return { kind: "refused", status: "excluded", detail: `its target ${target} is excluded by ${glob}` };
      }
      const info = await this.access.typeOf(target);
      if (info === undefined) return { kind: "refused", status: "missing", detail: "a broken symlink" };
      real = target;
      type = info.type;
    }
    if (type !== "file") return { kind: "refused", status: "not_a_file", detail: `${describeType(type)}, not a file` };
    return this.readReal(real, slot.rule);
  }

  private readReal(real: string, rule: Slot["rule"] | "import"): Promise<Resolved> {
    const isRule = rule !== undefined && rule !== "import";
    const key = `${isRule ? (rule.spec.unconditionalByDefault ? "rule+" : "rule-") : "file"}\u0000${real}`;
    let pending = this.reads.get(key);
    if (pending === undefined) {
      pending = this.access
        .read(real, this.plan.maxBytes, key, async (text): Promise<ReadValue> => {
          const parsed = parseInstructions(text, isRule ? { rule: true, unconditionalByDefault: rule.spec.unconditionalByDefault } : {});
          const count = await this.tokenCounter();
          return { parsed, tokens: count(parsed.content) };
        })
        .then((outcome) => resolvedFrom(outcome, real, this.plan.maxBytes));
      this.reads.set(key, pending);
    }
    return pending;
  }

  // ---- putting it together, in order ----

  private async assemble(group: DirectoryGroup): Promise<void> {
    const loadedOverrides = new Set<string>();
    const rules: Array<{ slot: Slot; outcome: Resolved }> = [];
    const locals: Array<{ slot: Slot; outcome: Resolved }> = [];
    // Refusals are recorded synchronously: most slots are absences, and a big tree has tens of thousands.
    const place = async (slot: Slot, outcome: Extract<Resolved, { kind: "read" }>): Promise<void> => {
      const file = await this.place(slot, outcome, loadedOverrides);
      if (file !== undefined && slot.overrides !== undefined && !file.empty) loadedOverrides.add(slot.overrides);
    };
    for (const slot of group.slots) {
      const outcome = slot.outcome instanceof Promise ? await slot.outcome : (slot.outcome as Resolved);
      if (slot.rule !== undefined) rules.push({ slot, outcome });
      else if (slot.local) locals.push({ slot, outcome });
      else if (outcome.kind === "refused") this.refuseSlot(slot, outcome);
      else await place(slot, outcome);
    }
    // Rules that always apply first, then those a given path activated: more specific later.
    const rank = (entry: { outcome: Resolved }): number =>
      entry.outcome.kind === "read" && entry.outcome.value.parsed.rule?.activation === "globs" ? 1 : 0;
    rules.sort((a, b) => rank(a) - rank(b));
    for (const { slot, outcome } of [...rules, ...locals]) {
      if (outcome.kind === "refused") this.refuseSlot(slot, outcome);
      else await place(slot, outcome);
    }
  }

  private refuseSlot(slot: Slot, outcome: Extract<Resolved, { kind: "refused" }>): void {
    this.record(REFUSALS.has(outcome.status), () => this.candidateOf(slot, outcome.status, outcome.detail));
  }

  private candidateOf(slot: Slot, status: CandidateStatus, detail: string): InstructionCandidate {
    return {
      path: slot.display,
      absolutePath: slot.absolute,
      format: slot.format,
      scope: slot.scope,
      layer: slot.layer,
      status,
      detail,
      directory: slot.directory,
    };
  }

  /** Keeps a candidate for explain, and a refusal always; builds it only then (a big tree has thousands). */
  private record(refusal: boolean, make: () => InstructionCandidate): void {
    if (!refusal && !this.plan.explain) return;
    const candidate = make();
    if (this.plan.explain) this.candidates.push(candidate);
    if (refusal) this.refused.push(candidate);
  }

  private async place(slot: Slot, outcome: Extract<Resolved, { kind: "read" }>, loadedOverrides: Set<string>): Promise<InstructionFile | undefined> {
    if (loadedOverrides.has(slot.absolute)) {
      this.record(false, () =>
        this.candidateOf(slot, "shadowed", `${basename(slot.absolute).replace(/\.md$/, ".override.md")} is loaded in its place`),
      );
      return undefined;
    }
    const first = this.seen.get(outcome.identity);
    if (first !== undefined) {
      if (!first.alsoKnownAs.includes(slot.display) && first.path !== slot.display) first.alsoKnownAs.push(slot.display);
      this.record(false, () =>
        this.candidateOf(
          slot,
          "duplicate",
          `the same file as ${first.path}${first.scope === "import" ? ` (imported by ${importer(first)})` : ""}: loaded once`,
        ),
      );
      return undefined;
    }
    const { parsed } = outcome.value;
    let reason = slot.reason;
    let matched: Array<{ path: string; glob: string }> = [];
    const notes = [...parsed.problems];
    if (slot.rule !== undefined && parsed.rule !== undefined) {
      const meta = parsed.rule;
      if (meta.activation === "on_request") {
        this.onRequest.push({ path: slot.display, format: slot.format, description: meta.description });
        const why =
          meta.description !== undefined
            ? `applies on request (description: ${meta.description})`
            : "applies only when asked for by name (no globs, no alwaysApply)";
        this.record(false, () => this.candidateOf(slot, "on_request", `${why}: not loaded`));
        return undefined;
      }
      if (meta.activation === "globs") {
        matched = this.match(meta.globs, slot.rule.base, notes);
        if (matched.length === 0) {
          const against = (): string =>
            this.plan.paths.length === 0
              ? "no paths given: pass the files about to be read or edited"
              : `none of ${listSome(this.plan.paths.map((path) => path.display))} matches`;
          const base = slot.rule.base;
          this.record(false, () => this.candidateOf(slot, "not_matched", `rule for ${meta.globs.join(", ")}${this.baseNote(base)}: ${against()}`));
          return undefined;
        }
        reason = { kind: "rule_match", path: (matched[0] as { path: string }).path, glob: (matched[0] as { glob: string }).glob };
      }
    }
    const file: InstructionFile = {
      path: slot.display,
      absolutePath: slot.absolute,
      realPath: outcome.real,
      format: slot.format,
      scope: slot.scope,
      layer: slot.layer,
      reason,
      bytes: outcome.bytes,
      tokens: outcome.value.tokens,
      empty: parsed.content.trim() === "",
      included: true,
      alsoKnownAs: [],
      depth: 0,
      imports: [],
      content: parsed.content,
      notes,
    };
    if (slot.rule !== undefined && parsed.rule !== undefined) {
      file.rule = {
        globs: parsed.rule.globs,
        activation: parsed.rule.activation,
        alwaysApply: parsed.rule.alwaysApply,
        description: parsed.rule.description,
        matched,
        base: this.display(slot.rule.base) || ".",
      };
    }
    this.seen.set(outcome.identity, file);
    this.files.push(file);
    this.record(false, () =>
      this.candidateOf(slot, file.empty ? "empty" : "loaded", file.empty ? "empty once frontmatter and comments are removed" : describeLoaded(file)),
    );
    const imports = await this.expand(file, parsed, [outcome.identity], [file.path]);
    if (!file.empty || imports.length > 0) this.units.push({ file, imports });
    return file;
  }

  private match(globs: readonly string[], base: string, notes: string[]): Array<{ path: string; glob: string }> {
    const matcher = compileGlobs(globs, notes);
    const matched: Array<{ path: string; glob: string }> = [];
    for (const { display, rel } of this.pathsBelow(base)) {
      const glob = matcher(rel);
      if (glob !== undefined) matched.push({ path: display, glob });
    }
    return matched;
  }

  /** The given paths below `base`, relative to it: computed once per base (most rules share one). */
  private pathsBelow(base: string): Array<{ display: string; rel: string }> {
    let found = this.relativePaths.get(base);
    if (found === undefined) {
      found = [];
      for (const path of this.plan.paths) {
        const rel = below(path.absolute, base);
        if (rel !== undefined && rel !== "") found.push({ display: path.display, rel });
      }
      this.relativePaths.set(base, found);
    }
    return found;
  }

  private baseNote(base: string): string {
    return base === this.plan.top ? "" : ` (relative to ${this.display(base) || "."})`;
  }

  // ---- imports ----

  private async expand(file: InstructionFile, parsed: ParsedInstructions, stack: string[], chain: string[]): Promise<ImportNode[]> {
    if (parsed.imports.length === 0) return [];
    const depth = stack.length;
    const base = dirname(file.realPath);
    const targets = parsed.imports.map((reference) => ({ reference, target: this.importTarget(base, reference.target) }));
    const outcomes = await Promise.all(targets.map(({ target }) => (depth > this.plan.maxDepth ? undefined : this.resolveImport(target))));
    const nodes: ImportNode[] = [];
    for (let index = 0; index < targets.length; index++) {
      const { reference, target } = targets[index] as (typeof targets)[number];
      const outcome = outcomes[index];
      const at = { path: file.path, line: reference.line };
      const shown = typeof target === "string" ? this.display(target) : `@${reference.target}`;
      const refuse = (status: CandidateStatus, detail: string): void => {
        const candidate: InstructionCandidate = {
          path: shown,
          absolutePath: typeof target === "string" ? target : "",
          format: file.format,
          scope: "import",
          layer: file.layer,
          status,
          detail,
          importedBy: at,
        };
        this.record(status !== "duplicate", () => candidate);
        nodes.push({
          kind: "note",
          insertAt: reference.insertAt,
          text: `@${reference.target} (${file.path} line ${reference.line}) not loaded: ${status === "cycle" ? detail : (NOTE[status] ?? status)}`,
        });
      };
      if (outcome === undefined) {
        refuse("too_deep", `the import chain ${chain.join(" → ")} → ${shown} is deeper than ${this.plan.maxDepth} levels: cut`);
        continue;
      }
      if (outcome.kind === "refused") {
        refuse(outcome.status, outcome.detail);
        continue;
      }
      if (stack.includes(outcome.identity)) {
        const loop = [...chain.slice(stack.indexOf(outcome.identity)), shown];
        refuse("cycle", `import cycle ${loop.join(" → ")}: cut`);
        continue;
      }
      const first = this.seen.get(outcome.identity);
      if (first !== undefined) {
        this.record(false, () => ({
          path: shown,
          absolutePath: target as string,
          format: file.format,
          scope: "import",
          layer: file.layer,
          status: "duplicate",
          detail: `the same file as ${first.path}, already loaded`,
          importedBy: at,
        }));
        nodes.push({
          kind: "note",
          insertAt: reference.insertAt,
          text: `@${reference.target} (${file.path} line ${reference.line}): the same file as ${first.path}, included once`,
        });
        continue;
      }
      const value = outcome.value;
      const child: InstructionFile = {
        path: shown,
        absolutePath: target as string,
        realPath: outcome.real,
        format: file.format,
        scope: "import",
        layer: file.layer,
        reason: { kind: "import", by: file.path, line: reference.line },
        bytes: outcome.bytes,
        tokens: value.tokens,
        empty: value.parsed.content.trim() === "",
        included: true,
        alsoKnownAs: [],
        depth,
        imports: [],
        content: value.parsed.content,
        notes: [...value.parsed.problems],
      };
      this.seen.set(outcome.identity, child);
      this.files.push(child);
      file.imports.push(child.path);
      this.record(false, () => ({
        path: child.path,
        absolutePath: child.absolutePath,
        format: child.format,
        scope: "import",
        layer: child.layer,
        status: child.empty ? "empty" : "loaded",
        detail: child.empty ? `imported by ${file.path} line ${reference.line}; empty` : describeLoaded(child),
        importedBy: at,
      }));
      const children = await this.expand(child, value.parsed, [...stack, outcome.identity], [...chain, child.path]);
      nodes.push({ kind: "file", insertAt: reference.insertAt, file: child, imports: children });
    }
    return nodes;
  }

  /** The absolute path an `@` target names, or why it names none. */
  private importTarget(base: string, target: string): string | { status: CandidateStatus; detail: string } {
    if (target === "~" || target.startsWith("~/")) {
      if (this.plan.home === undefined) return { status: "skipped", detail: "a ~/ import, and no home directory was given (option home)" };
      return resolve(this.plan.home, target.slice(2));
    }
    if (target.startsWith("~")) return { status: "skipped", detail: "~user paths are not supported: write the path from ~/ or absolute" };
    return resolve(base, target);
  }

  private async resolveImport(target: string | { status: CandidateStatus; detail: string }): Promise<Resolved> {
    if (typeof target !== "string") return { kind: "refused", ...target };
    const excluded = this.excludedBy(target);
    if (excluded !== undefined) return { kind: "refused", status: "excluded", detail: `excluded by ${excluded}` };
    // Checked on the path as written before anything is opened: no probing outside the allowed directories.
    if (!this.allowed(target)) {
      return {
        kind: "refused",
        status: "outside",
        detail: "outside the project and the user's instruction directories (allow its directory with allowedImportDirs)",
      };
    }
    const secret = withheld(target);
    if (secret !== undefined) return { kind: "refused", status: "sensitive", detail: secret };
    const real = await this.access.realpath(target);
    if (real === undefined) return { kind: "refused", status: "missing", detail: "not found" };
    if (!this.allowed(real))
      return { kind: "refused", status: "outside", detail: `a symlink to ${real}, outside the project and the allowed directories` };
    const linkedSecret = real === target ? undefined : withheld(real);
    if (linkedSecret !== undefined) return { kind: "refused", status: "sensitive", detail: `a symlink to ${real}, ${linkedSecret}` };
    if (real !== target) {
      const glob = this.excludedBy(real);
      if (glob !== undefined) return { kind: "refused", status: "excluded", detail: `its target ${real} is excluded by ${glob}` };
    }
    const info = await this.access.typeOf(real);
    if (info === undefined) return { kind: "refused", status: "missing", detail: "not found" };
    if (info.type !== "file") return { kind: "refused", status: "not_a_file", detail: `${describeType(info.type)}, not a file` };
    if (info.size > this.plan.maxBytes) return { kind: "refused", status: "too_large", detail: tooLarge(info.size, this.plan.maxBytes) };
    return this.readReal(real, "import");
  }

  /** Relative to the root when inside the repository, `~/…` under home, else absolute. */
  display(absolute: string): string {
    const { plan } = this;
    const inRoot = below(absolute, plan.root);
    if (inRoot !== undefined) return inRoot;
    if (isInside(absolute, plan.top)) return posix(relative(plan.root, absolute));
    for (const home of plan.homeAliases) {
      const inHome = below(absolute, home);
      if (inHome !== undefined) return inHome === "" ? "~" : `~/${inHome}`;
    }
    return absolute;
  }
}

type SubdirLookup =
  | { kind: "dir"; real: string; entries: ReadonlyMap<string, EntryType> }
  | { kind: "absent"; status: CandidateStatus; detail: string };

const SCOPES: readonly InstructionScope[] = ["managed", "user", "ancestor", "project", "local", "subdirectory", "rule", "import"];

/** Why an import was not followed, as the prompt says it (the detail is in `refused` and the explain output). */
const NOTE: Partial<Record<CandidateStatus, string>> & Record<"missing", string> = {
  missing: "not found",
  excluded: "excluded",
  outside: "outside the project",
  not_a_file: "not a file",
  too_large: "too large",
  binary: "not text",
  unreadable: "unreadable",
  cycle: "import cycle",
  too_deep: "too deep",
  skipped: "no home directory",
  sensitive: "it may hold secrets",
};

/** Statuses of files that exist (or were asked for) but were not read: reported even without `explain`. */
const REFUSALS = new Set<CandidateStatus>([
  "excluded",
  "outside",
  "not_a_file",
  "too_large",
  "binary",
  "unreadable",
  "cycle",
  "too_deep",
  "skipped",
  "sensitive",
]);

/**
 * Why an import is never followed whatever the directories allowed: a file of a git directory (its config holds
 * remote URLs with their tokens, `.git/` holds hooks and credentials of tools), or one whose name looks like a
 * secret by the rules the snapshot hides untracked files by (`.env*`, keys, credentials). A committed CLAUDE.md
 * saying `@.env` would otherwise paste the secret into every prompt.
 */
function withheld(path: string): string | undefined {
  const segments = path.split(sep);
  if (segments.includes(".git")) return "a file of a git directory (its config holds remote URLs and their credentials): never imported";
  const reason = sensitiveReason(segments.join("/"));
  return reason === undefined ? undefined : `a file ${reason}: never imported`;
}

function firstSegment(name: string): string {
  const slash = name.indexOf("/");
  return slash === -1 ? name : name.slice(0, slash);
}

function entryIn(entries: ReadonlyMap<string, EntryType>, dirReal: string, name: string, explain: boolean): Slot["found"] {
  const type = entries.get(name);
  if (type === undefined) return { kind: "absent", status: "missing", detail: explain ? `not found${caseHint(entries, name)}` : "not found" };
  return { kind: "entry", type, real: childPath(dirReal, name) };
}

/** `claude.md` next to a missing `CLAUDE.md`: the most common reason a file "is not loaded". */
function caseHint(entries: ReadonlyMap<string, EntryType>, name: string): string {
  const lower = name.toLowerCase();
  for (const other of entries.keys()) if (other !== name && other.toLowerCase() === lower) return ` (there is ${other}: names are case-sensitive)`;
  return "";
}

function resolvedFrom(outcome: ReadOutcome<ReadValue>, real: string, maxBytes: number): Resolved {
  switch (outcome.kind) {
    case "read":
      return { kind: "read", value: outcome.value, bytes: outcome.bytes, identity: outcome.identity, real };
    case "missing":
      return { kind: "refused", status: "missing", detail: "not found" };
    case "not_a_file":
      return { kind: "refused", status: "not_a_file", detail: `${outcome.what}, not a file` };
    case "too_large":
      return { kind: "refused", status: "too_large", detail: tooLarge(outcome.bytes, maxBytes) };
    case "binary":
      return { kind: "refused", status: "binary", detail: "contains NUL bytes, so it is not text" };
    case "unreadable":
      return { kind: "refused", status: "unreadable", detail: `could not be read: ${outcome.message}` };
  }
}

function tooLarge(bytes: number, maxBytes: number): string {
  return `${formatBytes(bytes)}, over the limit of ${formatBytes(maxBytes)}`;
}

function formatBytes(bytes: number): string {
  if (bytes >= 1024 * 1024) return `${(bytes / (1024 * 1024)).toFixed(1).replace(/\.0$/, "")} MiB`;
  if (bytes >= 1024) return `${(bytes / 1024).toFixed(1).replace(/\.0$/, "")} KiB`;
  return `${bytes} bytes`;
}

function depthOf(display: string): number {
  return display.split("/").length;
}

function listSome(paths: readonly string[]): string {
  const shown = paths.slice(0, 5).join(", ");
  return paths.length > 5 ? `${shown} and ${paths.length - 5} more` : shown;
}

function nameIn(path: string, directory: string): string {
  if (directory === ".") return path;
  return path.startsWith(`${directory}/`) ? path.slice(directory.length + 1) : path;
}

function importer(file: InstructionFile): string {
  return file.reason.kind === "import" ? `${file.reason.by} line ${file.reason.line}` : "";
}

export function describeReason(reason: LoadReason): string {
  switch (reason.kind) {
    case "session_start":
      return "at session start";
    case "path":
      return `for ${reason.path}`;
    case "rule_match":
      return `${reason.glob} matches ${reason.path}`;
    case "import":
      return `imported by ${reason.by} line ${reason.line}`;
  }
}

function describeLoaded(file: InstructionFile): string {
  return `${file.scope}, ${describeReason(file.reason)}, ${file.tokens} tokens`;
}

function explainText(candidates: readonly InstructionCandidate[], plan: Plan): string {
  const lines = [
    `Looked at ${candidates.length} paths (formats ${plan.formats.join(", ")}; ${plan.paths.length === 0 ? "no paths given" : `paths ${listSome(plan.paths.map((path) => showPath(path.display)))}`}):`,
  ];
  const width = Math.max(...candidates.map((candidate) => candidate.status.length), 6);
  // Plain absences in one directory share a line: the reader looks for the one that is not plain.
  const plainMissing = (candidate: InstructionCandidate): boolean =>
    candidate.status === "missing" &&
    candidate.directory !== undefined &&
    (candidate.detail === "not found" || candidate.detail.endsWith("does not exist"));
  for (let index = 0; index < candidates.length; index++) {
    const candidate = candidates[index] as InstructionCandidate;
    if (!plainMissing(candidate)) {
      // Paths, globs and frontmatter values in the detail are the repository's: kept on the line, escaped.
      lines.push(`  ${candidate.status.padEnd(width)}  ${showPath(candidate.path)}: ${showInline(candidate.detail)}`);
      continue;
    }
    const names: string[] = [];
    let next = index;
    for (; next < candidates.length; next++) {
      const other = candidates[next] as InstructionCandidate;
      if (!plainMissing(other) || other.directory !== candidate.directory) break;
      names.push(showPath(nameIn(other.path, candidate.directory as string)));
    }
    index = next - 1;
    const where = candidate.directory === "." ? "" : `${showInline(candidate.directory as string)}/`;
    lines.push(`  ${"missing".padEnd(width)}  ${where}${names.length === 1 ? names[0] : `{${names.join(", ")}}`}`);
  }
  return `${lines.join("\n")}\n`;
}

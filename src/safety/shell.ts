/**
 * Shell syntax → the simple commands a command line would run, with every word reduced to its literal value
 * where the shell would not expand it, and a reason wherever it would. The classifier sees only this small
 * interface; the parser behind it is mvdan/sh (the parser of shfmt), transpiled to JavaScript as `mvdan-sh`.
 *
 * Pure and synchronous. The parser is loaded on first use (about 50 ms), not when gitctx is imported.
 */
import { createRequire } from "node:module";

/**
 * How much is known of a word before the shell runs:
 * - `literal`: nothing in it is expanded; `value` is exactly what the command receives;
 * - `quoted-parameter`: literal text and double-quoted plain parameters (`"$USER"`, `"${FILE}"`, `--author="$A"`)
 *   only, so it becomes exactly one argument (no word splitting, no globbing, no command run), whose text is
 *   not known;
 * - `dynamic`: anything else the shell expands (unquoted variables, globs, braces, tilde, `$(...)`...): how many
 *   arguments it becomes, and what they say, is not known.
 */
export type WordKind = "literal" | "quoted-parameter" | "dynamic";

/** One word of a command, after quote removal. */
export interface ShellWord {
  /** The word as the command receives it, when the shell would expand nothing in it; otherwise `undefined`. */
  value: string | undefined;
  kind: WordKind;
  /** The word as written. */
  source: string;
  /** Why the value is not known before the shell runs, e.g. "variable $REF", "command substitution", "glob". */
  dynamic: string[];
  /** The value up to the first expansion (all of it when nothing is expanded): `--output=` in `--output=$F`. */
  prefix: string;
}

export interface ShellAssignment {
  name: string;
  value: ShellWord | undefined;
}

export interface ShellRedirect {
  /** The operator as written: `>`, `>>`, `<`, `<>`, `<&`, `>&`, `>|`, `<<`, `<<-`, `<<<`, `&>`, `&>>`. */
  op: string;
  /** The file descriptor before the operator (`2` in `2>&1`), when written. */
  fd: string | undefined;
  /** The target word; for a here-document, its delimiter. */
  target: ShellWord;
}

/** A simple command: assignments, words and redirections, as `A=1 git log >out`. */
export interface ShellCommand {
  words: ShellWord[];
  assignments: ShellAssignment[];
  redirects: ShellRedirect[];
  /**
   * Enclosing constructs that run the command somewhere the caller cannot see from the command line alone:
   * "command substitution", "process substitution", "function body", "coproc", "background job".
   */
  context: string[];
  /** The source text of the command. */
  source: string;
  /**
   * Where its standard input comes from: `line` when the command line gives it (a redirection, a here-document
   * or here-string, or a pipe from the command before it), else `caller`: whatever the caller's standard input
   * is, a terminal, or a pipe that may never end.
   */
  stdin: "line" | "caller";
}

/** A construct that changes the shell's state for the commands after it (`cd`, `export`, a function...). */
export interface ShellStateChange {
  kind: string;
  source: string;
}

/**
 * Something in the command line that bash may execute although no command is named there, or that this parser
 * and bash may read differently: arithmetic contexts and array subscripts (bash expands `$(...)` found in the
 * value they evaluate, even one written in single quotes), control characters. A line with a hazard is never
 * allowed.
 */
export interface ShellHazard {
  kind: string;
  source: string;
}

export type ShellParse =
  | { ok: true; commands: ShellCommand[]; stateChanges: ShellStateChange[]; hazards: ShellHazard[] }
  | { ok: false; error: string };

// ---------------------------------------------------------------------------------------------------------
// The parser package, typed as far as this module uses it.

interface GoPos {
  Offset(): number;
}
interface GoNode {
  Pos(): GoPos;
  End(): GoPos;
  [field: string]: unknown;
}
interface MvdanSyntax {
  NewParser(...options: unknown[]): { Parse(src: string, name: string): GoNode };
  NodeType(node: GoNode): string;
  Walk(node: GoNode, visit: (node: GoNode | null | undefined) => boolean): void;
  KeepComments(keep: boolean): unknown;
  Variant(variant: unknown): unknown;
  LangBash: unknown;
}

let syntaxModule: MvdanSyntax | undefined;

/** How the `mvdan-sh` package is loaded: `require` by default; a program may hand in a faster way (a code cache). */
export type ParserModuleLoader = (defaultLoad: () => unknown) => unknown;
let parserLoader: ParserModuleLoader | undefined;

/**
 * Replaces how the parser package is loaded, before the first parse (the CLI uses it to load the parser from
 * V8's code cache: about 50 ms become about 20). The loader must return the package's exports.
 */
export function setParserModuleLoader(loader: ParserModuleLoader | undefined): void {
  parserLoader = loader;
}

/** Where the parser package's code is, for a loader that compiles it itself. */
export function parserModulePath(): string {
  return createRequire(import.meta.url).resolve("mvdan-sh");
}

/**
 * Loads the transpiled parser. Its runtime sets `Error.stackTraceLimit = Infinity` and a global `require` on
 * load; both are put back so that importing the parser changes nothing else in the process.
 */
function loadSyntax(): MvdanSyntax {
  if (syntaxModule !== undefined) return syntaxModule;
  const g = globalThis as { require?: unknown };
  const hadRequire = Object.hasOwn(g, "require");
  const previousRequire = g.require;
  const previousLimit = Error.stackTraceLimit;
  try {
    const defaultLoad = (): unknown => createRequire(import.meta.url)("mvdan-sh");
    const loaded = (parserLoader === undefined ? defaultLoad() : parserLoader(defaultLoad)) as { syntax: MvdanSyntax };
    syntaxModule = loaded.syntax;
  } finally {
    Error.stackTraceLimit = previousLimit;
    if (hadRequire) g.require = previousRequire;
    else delete g.require;
  }
  return syntaxModule;
}

// Operator codes of mvdan/sh v3 (syntax/tokens.go), as the transpiled parser reports them.
const REDIRECT_OPS: Record<number, string> = {
  54: ">",
  55: ">>",
  56: "<",
  57: "<>",
  58: "<&",
  59: ">&",
  60: ">|",
  61: "<<",
  62: "<<-",
  63: "<<<",
  64: "&>",
  65: "&>>",
};

/** Longest command line parsed; longer ones are refused rather than risk a slow parse. */
export const MAX_COMMAND_LINE = 100_000;

/** Parses a command line (bash syntax) into its simple commands. Never throws for bad input. */
export function parseShell(commandLine: string): ShellParse {
  if (commandLine.length > MAX_COMMAND_LINE) {
    return { ok: false, error: `the command line is longer than ${MAX_COMMAND_LINE} characters` };
  }
  if (commandLine.includes("\0")) return { ok: false, error: "the command line contains a NUL character" };
  const syntax = loadSyntax();
  const hazards: ShellHazard[] = [];
  // A CR (or any control character but tab and newline) is where this parser and bash can disagree: bash keeps
  // a CR inside a word, an editor or terminal shows the line ending there, and comments start differently.
  const control = /[\x01-\x08\x0b-\x1f\x7f]/.exec(commandLine);
  if (control !== null) {
    hazards.push({
      kind: `control character U+${control[0].charCodeAt(0).toString(16).padStart(4, "0").toUpperCase()}`,
      source: JSON.stringify(commandLine.slice(Math.max(0, control.index - 20), control.index + 20)),
    });
  }
  let file: GoNode;
  try {
    file = syntax.NewParser(syntax.KeepComments(true), syntax.Variant(syntax.LangBash)).Parse(commandLine, "");
  } catch (error) {
    return { ok: false, error: parseErrorMessage(error) };
  }
  // Bash starts a comment only where a word starts; mvdan/sh also after a closing quote (`'x'#; cmd`), and would
  // hide the command bash then runs. A `#` the parser took for a comment but bash reads inside a word is a hazard.
  const bytes = Buffer.from(commandLine, "utf8");
  if (commandLine.includes("#"))
    syntax.Walk(file, (child) => {
      if (child === null || child === undefined) return true;
      if (syntax.NodeType(child) === "Comment") {
        const at = (child.Hash as GoPos).Offset();
        const before = at > 0 ? String.fromCharCode(bytes[at - 1]!) : "\n";
        if (!/[\s;&|()<>]/.test(before))
          hazards.push({ kind: "a # that bash reads inside a word, not as a comment", source: commandLine.slice(Math.max(0, at - 20), at + 20) });
        // bash ends a comment at the newline, whatever precedes it; this parser carries one that ends in a
        // backslash on to the next line, and would hide the command bash runs there.
        const newline = bytes.indexOf(0x0a, at);
        if (newline !== -1 && child.End().Offset() > newline)
          hazards.push({ kind: "a comment this parser reads past the end of its line", source: commandLine.slice(at, newline + 40) });
      }
      return true;
    });
  const walker = new Walker(syntax, Buffer.from(commandLine, "utf8"));
  try {
    walker.statements(list(file.Stmts), []);
  } catch (error) {
    // A node shape this walker does not know: refuse to guess.
    return { ok: false, error: `unsupported shell syntax (${error instanceof Error ? error.message : String(error)})` };
  }
  return { ok: true, commands: walker.commands, stateChanges: walker.stateChanges, hazards: [...hazards, ...walker.hazards] };
}

function parseErrorMessage(error: unknown): string {
  if (error !== null && typeof error === "object" && typeof (error as { Error?: unknown }).Error === "function") {
    return String((error as { Error: () => unknown }).Error());
  }
  return error instanceof Error ? error.message : String(error);
}

function list(value: unknown): GoNode[] {
  if (value === null || value === undefined) return [];
  if (!Array.isArray(value)) throw new Error("expected a list of nodes");
  return value as GoNode[];
}

function node(value: unknown): GoNode | undefined {
  return value === null || value === undefined ? undefined : (value as GoNode);
}

/** Builtins that change the directory, the environment, or what a later command name means. */
const STATE_BUILTINS = new Set([
  "cd",
  "pushd",
  "popd",
  "export",
  "unset",
  "alias",
  "unalias",
  "set",
  "shopt",
  "source",
  ".",
  "eval",
  "hash",
  "enable",
  "declare",
  "typeset",
  "local",
  "readonly",
  "builtin",
  "trap",
]);

/** `[[ ]]` operators that evaluate their operands as arithmetic (mvdan/sh v3 token codes): -eq -ne -le -ge -lt -gt. */
const ARITHMETIC_TEST_OPS = new Set([116, 117, 118, 119, 120, 121]);
/** `[[ -v name ]]` and `[[ -R name ]]` evaluate an array subscript in the name. */
const NAME_TEST_OPS = new Set([110, 111]);

/** A parameter a double-quoted `$NAME`/`${NAME}` names that expands to one plain string: a variable or `$1`..`$9`. */
const PLAIN_PARAMETER = /^([A-Za-z_][A-Za-z0-9_]*|[1-9])$/;

class Walker {
  readonly commands: ShellCommand[] = [];
  readonly stateChanges: ShellStateChange[] = [];
  readonly hazards: ShellHazard[] = [];

  constructor(
    private readonly syntax: MvdanSyntax,
    private readonly bytes: Buffer,
  ) {}

  private text(n: GoNode): string {
    return this.bytes
      .subarray(n.Pos().Offset(), n.End().Offset())
      .toString("utf8")
      .replace(/[\s;]+$/, "");
  }

  statements(stmts: GoNode[], context: string[], fed = false): void {
    for (const stmt of stmts) this.statement(stmt, context, fed);
  }

  /** `fed`: the standard input of what runs here is given by the line (see `ShellCommand.stdin`). */
  private statement(stmt: GoNode, context: string[], fed = false): void {
    const inner = stmt.Background === true ? [...context, "background job"] : context;
    const redirects = list(stmt.Redirs).map((r) => this.redirect(r, inner));
    const input = fed || redirects.some((r) => INPUT_REDIRECTS.has(r.op) && (r.fd === undefined || r.fd === "0"));
    const cmd = node(stmt.Cmd);
    if (cmd === undefined) {
      // Redirections alone (`> file`): no command runs, but the shell writes the file.
      this.commands.push({ words: [], assignments: [], redirects, context: inner, source: this.text(stmt), stdin: input ? "line" : "caller" });
      return;
    }
    this.command(cmd, redirects, inner, stmt, input);
  }

  private command(cmd: GoNode, redirects: ShellRedirect[], context: string[], stmt: GoNode, fed: boolean): void {
    const type = this.syntax.NodeType(cmd);
    switch (type) {
      case "CallExpr": {
        const assignments = list(cmd.Assigns).map((a) => this.assignment(a, context));
        const words = list(cmd.Args).map((w) => this.word(w, context));
        const source = this.text(stmt);
        if (words.length === 0 && assignments.length > 0) {
          this.stateChanges.push({ kind: "variable assignment", source });
        }
        const name = words[0]?.value;
        if (name !== undefined && STATE_BUILTINS.has(name)) this.stateChanges.push({ kind: name, source });
        this.commands.push({ words, assignments, redirects, context, source, stdin: fed ? "line" : "caller" });
        return;
      }
      case "BinaryCmd":
        this.applyRedirects(redirects, context, stmt);
        this.statement(cmd.X as GoNode, context, fed);
        // The right side of `|` and `|&` reads what the left side writes.
        this.statement(cmd.Y as GoNode, context, fed || PIPE_OPERATORS.has(Number(cmd.Op)));
        return;
      case "Subshell":
      case "Block":
        this.applyRedirects(redirects, context, stmt);
        this.statements(list(cmd.Stmts), context, fed);
        return;
      case "IfClause":
        this.applyRedirects(redirects, context, stmt);
        this.ifClause(cmd, context, fed);
        return;
      case "WhileClause":
        // A loop on a condition may never end (`while git rev-parse HEAD; do ...; done`).
        this.hazards.push({ kind: `${cmd.Until === true ? "until" : "while"} loop (may never end)`, source: this.text(stmt) });
        this.applyRedirects(redirects, context, stmt);
        this.statements(list(cmd.Cond), context, fed);
        this.statements(list(cmd.Do), context, fed);
        return;
      case "ForClause": {
        this.applyRedirects(redirects, context, stmt);
        if (this.syntax.NodeType(cmd.Loop as GoNode) === "CStyleLoop") this.hazards.push({ kind: "arithmetic for loop", source: this.text(stmt) });
        // `select` prompts and reads its answers from standard input, again and again.
        if (cmd.Select === true) this.hazards.push({ kind: "select loop (reads standard input)", source: this.text(stmt) });
        this.stateChanges.push({ kind: "for loop variable", source: this.text(stmt) });
        this.words(cmd.Loop as GoNode, context);
        this.statements(list(cmd.Do), context, fed);
        return;
      }
      case "CaseClause":
        this.applyRedirects(redirects, context, stmt);
        this.word(cmd.Word as GoNode, context);
        for (const item of list(cmd.Items)) {
          for (const pattern of list(item.Patterns)) this.word(pattern, context);
          this.statements(list(item.Stmts), context, fed);
        }
        return;
      case "TimeClause": {
        this.applyRedirects(redirects, context, stmt);
        const inner = node(cmd.Stmt);
        if (inner !== undefined) this.statement(inner, context, fed);
        return;
      }
      case "FuncDecl": {
        const name = node(cmd.Name);
        this.stateChanges.push({ kind: `function ${String(name?.Value ?? "")}`.trim(), source: this.text(stmt) });
        const body = node(cmd.Body);
        if (body !== undefined) this.statement(body, [...context, "function body"]);
        return;
      }
      case "CoprocClause": {
        const inner = node(cmd.Stmt);
        if (inner !== undefined) this.statement(inner, [...context, "coproc"]);
        return;
      }
      case "DeclClause": {
        // `export A=1`, `declare -x B`, `local C`...: the environment of later commands changes. `declare -i`,
        // `-n` and names with subscripts evaluate arithmetic: a hazard too.
        const variant = String(node(cmd.Variant)?.Value ?? "declare");
        this.stateChanges.push({ kind: variant, source: this.text(stmt) });
        this.hazards.push({ kind: `${variant} (may evaluate arithmetic and subscripts)`, source: this.text(stmt) });
        this.applyRedirects(redirects, context, stmt);
        this.words(cmd, context);
        return;
      }
      case "ArithmCmd":
      case "LetClause":
        // Arithmetic evaluates variable values as expressions, and `$(...)` in a subscript runs.
        this.hazards.push({ kind: type === "LetClause" ? "let (arithmetic)" : "(( )) arithmetic", source: this.text(stmt) });
        this.applyRedirects(redirects, context, stmt);
        this.words(cmd, context);
        return;
      case "TestClause":
        // Not a program run, but expansions inside can run commands: collect those.
        this.applyRedirects(redirects, context, stmt);
        this.testHazards(cmd, stmt);
        this.words(cmd, context);
        return;
      default:
        throw new Error(`command node ${type}`);
    }
  }

  /** `[[ x -eq y ]]` and `[[ -v name ]]` evaluate their operands as arithmetic or as subscripted names. */
  private testHazards(cmd: GoNode, stmt: GoNode): void {
    this.syntax.Walk(cmd, (child) => {
      if (child === null || child === undefined) return true;
      const type = this.syntax.NodeType(child);
      if (type === "BinaryTest" && ARITHMETIC_TEST_OPS.has(Number(child.Op))) {
        this.hazards.push({ kind: "[[ ]] arithmetic comparison", source: this.text(stmt) });
        return false;
      }
      if (type === "UnaryTest" && NAME_TEST_OPS.has(Number(child.Op))) {
        this.hazards.push({ kind: "[[ -v ]] (evaluates a subscript)", source: this.text(stmt) });
        return false;
      }
      return true;
    });
  }

  private ifClause(clause: GoNode, context: string[], fed: boolean): void {
    this.statements(list(clause.Cond), context, fed);
    this.statements(list(clause.Then), context, fed);
    const elseClause = node(clause.Else);
    if (elseClause !== undefined) this.ifClause(elseClause, context, fed);
  }

  /** Redirections of a compound command apply to every command inside; recorded as a command of their own. */
  private applyRedirects(redirects: ShellRedirect[], context: string[], stmt: GoNode): void {
    if (redirects.length === 0) return;
    this.commands.push({ words: [], assignments: [], redirects, context, source: this.text(stmt), stdin: "line" });
  }

  /** Visits every Word below `n` (for constructs whose structure does not matter, only their expansions). */
  private words(n: GoNode, context: string[]): void {
    const found: GoNode[] = [];
    this.syntax.Walk(n, (child) => {
      if (child === null || child === undefined) return true;
      if (this.syntax.NodeType(child) === "Word") {
        found.push(child);
        return false;
      }
      return true;
    });
    for (const w of found) this.word(w, context);
  }

  private assignment(a: GoNode, context: string[]): ShellAssignment {
    const name = String(node(a.Name)?.Value ?? "");
    const value = node(a.Value);
    if (node(a.Array) !== undefined || node(a.Index) !== undefined) {
      this.hazards.push({ kind: "array assignment (evaluates a subscript)", source: this.text(a) });
      this.words(a, context);
      return { name, value: { value: undefined, kind: "dynamic", source: this.text(a), dynamic: ["array assignment"], prefix: "" } };
    }
    return { name, value: value === undefined ? undefined : this.word(value, context) };
  }

  private redirect(r: GoNode, context: string[]): ShellRedirect {
    const op = REDIRECT_OPS[Number(r.Op)];
    if (op === undefined) throw new Error(`redirect operator ${String(r.Op)}`);
    const fd = node(r.N);
    const target = this.word(r.Word as GoNode, context);
    const hdoc = node(r.Hdoc);
    // An unquoted here-document body is expanded: a command substitution in it runs.
    if (hdoc !== undefined) {
      this.word(hdoc, [...context, "here-document"]);
      this.hereDocumentEnd(r, hdoc, op, target);
    }
    return { op, fd: fd === undefined ? undefined : String(fd.Value), target };
  }

  /**
   * bash ends a here-document at the first line that is its delimiter (leading tabs removed for `<<-`), before
   * any backslash or expansion in the body is looked at. This parser joins a line ending in a backslash to the
   * next and reads an unclosed `${` on, so its body can run past that line and hide the commands bash runs
   * after it: a body (read from the end of the operator's line) with the delimiter on any line but its last is a
   * hazard. Several here-documents on one line are read as one body here, which can only over-report.
   */
  private hereDocumentEnd(r: GoNode, hdoc: GoNode, op: string, delimiter: ShellWord): void {
    const source = this.bytes.toString("utf8", (r.Word as GoNode).End().Offset(), hdoc.End().Offset());
    const lines = source.slice(source.indexOf("\n") + 1).split("\n");
    const matches = (line: string): boolean => (op === "<<-" ? line.replace(/^\t+/, "") : line) === delimiter.value;
    if (delimiter.value === undefined || lines.slice(0, -1).some(matches)) {
      this.hazards.push({ kind: "a here-document this parser and bash end at different lines", source: this.text(hdoc).slice(0, 80) });
    }
  }

  /** Reduces a word to its value after quote removal, noting every expansion the shell would perform. */
  word(w: GoNode, context: string[]): ShellWord {
    const dynamic: string[] = [];
    const state: PartState = { plainParameters: 0, unquoted: "", literals: [] };
    let value = "";
    let prefix: string | undefined;
    const parts = list(w.Parts);
    parts.forEach((part) => {
      state.valueLength = value.length;
      state.base = value;
      state.inner = "";
      const piece = this.part(part, false, dynamic, context, state);
      if (dynamic.length > 0 && prefix === undefined) prefix = state.prefix ?? value;
      value += piece;
    });
    // Brace expansion and tilde expansion are decided on the unquoted text of the whole word: `{a,'b'}` and
    // `x=~` are split over several parts. The literal text before the expansion is still known.
    const expansionAt = (at: number): void => {
      if (at === -1) return;
      const piece = state.literals.find((l) => at >= l.unquotedStart && at < l.unquotedStart + l.raw.length);
      const known = piece === undefined ? "" : value.slice(0, piece.valueStart) + unescapeUnquoted(piece.raw.slice(0, at - piece.unquotedStart));
      if (prefix === undefined || known.length < prefix.length) prefix = known;
    };
    const brace = braceExpansionAt(state.unquoted);
    if (brace !== -1) {
      dynamic.push("brace expansion");
      expansionAt(brace);
    }
    const tilde = tildeExpansionAt(state.unquoted);
    if (tilde !== -1) {
      dynamic.push("tilde expansion");
      expansionAt(tilde);
    }
    const kind: WordKind = dynamic.length === 0 ? "literal" : dynamic.length === state.plainParameters ? "quoted-parameter" : "dynamic";
    return { value: dynamic.length === 0 ? value : undefined, kind, source: this.text(w), dynamic, prefix: prefix ?? value };
  }

  private part(part: GoNode, quoted: boolean, dynamic: string[], context: string[], state: PartState): string {
    const type = this.syntax.NodeType(part);
    switch (type) {
      case "Lit": {
        const raw = String(part.Value);
        if (quoted) return unescapeDoubleQuoted(raw);
        // An escaped character is quoted: it takes part in no expansion. It stands in as neutral characters of
        // the same length, so positions in `unquoted` are positions in `raw`.
        const unescaped = raw.replace(/\\[\s\S]/g, "__");
        state.literals.push({ unquotedStart: state.unquoted.length, valueStart: state.valueLength ?? 0, raw });
        state.unquoted += unescaped;
        if (/[*?[]/.test(unescaped)) dynamic.push("glob");
        return unescapeUnquoted(raw);
      }
      case "SglQuoted": {
        const raw = String(part.Value);
        state.unquoted += "_";
        if (part.Dollar !== true) return raw;
        const decoded = decodeAnsiC(raw);
        if (decoded === undefined) dynamic.push("$'...' escape");
        return decoded ?? "";
      }
      case "DblQuoted": {
        state.unquoted += "_";
        if (part.Dollar === true) dynamic.push('$"..." translation');
        let value = "";
        for (const inner of list(part.Parts)) {
          const before = dynamic.length;
          const piece = this.part(inner, true, dynamic, context, state);
          // The literal text before the first expansion inside the quotes is still known: `"HEAD:$F"`.
          if (dynamic.length > before && state.prefix === undefined) state.prefix = state.base + value;
          value += piece;
          state.inner = value;
        }
        return value;
      }
      case "ParamExp": {
        const param = node(part.Param);
        const name = String(param?.Value ?? "");
        dynamic.push(`variable $${name}`);
        if (!quoted) state.unquoted += "_";
        const plain =
          part.Excl !== true &&
          part.Length !== true &&
          part.Width !== true &&
          node(part.Index) === undefined &&
          node(part.Slice) === undefined &&
          node(part.Repl) === undefined &&
          node(part.Exp) === undefined &&
          Number(part.Names ?? 0) === 0 &&
          PLAIN_PARAMETER.test(name);
        // Only inside double quotes is a plain parameter one argument: unquoted it is split and globbed.
        if (plain && quoted) state.plainParameters++;
        if (node(part.Index) !== undefined || node(part.Slice) !== undefined) {
          this.hazards.push({ kind: "array subscript or substring (evaluates arithmetic)", source: this.text(part) });
        }
        if (part.Excl === true) this.hazards.push({ kind: "indirect expansion ${!...}", source: this.text(part) });
        // `${x@P}` expands the value as a prompt, running any `$(...)` in it (`$_` holds what the line wrote
        // before); the other transformations (@Q quotes, @E decodes escapes, @U @u @L change case, @A @a @K @k
        // describe) run nothing.
        const transform = part.Exp as { Op?: unknown; Word?: GoNode | null } | null | undefined;
        if (transform !== null && transform !== undefined && Number(transform.Op) === TRANSFORM_OPERATOR) {
          const letter = transform.Word === null || transform.Word === undefined ? "" : this.text(transform.Word);
          if (!INERT_TRANSFORMS.has(letter))
            this.hazards.push({ kind: `\${...@${letter}} (a prompt expansion runs commands)`, source: this.text(part) });
        }
        // `${x:=v}` and `${x=v}` assign: the shell's state changes for what follows. (`Exp` is a plain struct,
        // not a node: read its operator directly.)
        const exp = part.Exp as { Op?: unknown } | null | undefined;
        if (exp !== null && exp !== undefined && ASSIGNING_EXPANSIONS.has(Number(exp.Op))) {
          this.stateChanges.push({ kind: "assignment in ${...}", source: this.text(part) });
        }
        this.words(part, context);
        return "";
      }
      case "CmdSubst":
        if (!quoted) state.unquoted += "_";
        dynamic.push("command substitution");
        this.statements(list(part.Stmts), [...context, "command substitution"]);
        return "";
      case "ProcSubst":
        state.unquoted += "_";
        dynamic.push("process substitution");
        this.statements(list(part.Stmts), [...context, "process substitution"]);
        return "";
      case "ArithmExp":
        if (!quoted) state.unquoted += "_";
        dynamic.push("arithmetic expansion");
        this.hazards.push({ kind: "$(( )) arithmetic", source: this.text(part) });
        this.words(part, context);
        return "";
      case "ExtGlob":
        state.unquoted += "_";
        dynamic.push("extended glob");
        return "";
      default:
        state.unquoted += "_";
        dynamic.push(`shell construct ${type}`);
        return "";
    }
  }
}

interface PartState {
  /** How many double-quoted plain parameters the word has (each one argument of unknown text). */
  plainParameters: number;
  /** The word's unquoted text, each quoted or escaped piece replaced by `_`: where braces and tildes count. */
  unquoted: string;
  /** Each unquoted literal part: where it starts in `unquoted` and in the value, and its raw text. */
  literals: Array<{ unquotedStart: number; valueStart: number; raw: string }>;
  /** The value's length before the part being read. */
  valueLength?: number;
  /** The value before the top-level part being read, and that part's text so far (inside double quotes). */
  base?: string;
  inner?: string;
  /** The known text before the first expansion, when it falls inside a part. */
  prefix?: string;
}

/** Redirections that give a command its standard input (fd 0 unless another is named). */
const INPUT_REDIRECTS = new Set(["<", "<>", "<&", "<<", "<<-", "<<<"]);
/** mvdan/sh v3 binary command operators of pipes: 12 `|`, 13 `|&`. */
const PIPE_OPERATORS = new Set([12, 13]);

/** mvdan/sh v3's operator of `${x@op}` transformations, and the transformations that run nothing. */
const TRANSFORM_OPERATOR = 84;
const INERT_TRANSFORMS = new Set(["Q", "E", "U", "u", "L", "A", "a", "K", "k"]);

/** mvdan/sh v3 parameter expansion operators that assign: 74 `${x=v}`, 75 `${x:=v}`. */
const ASSIGNING_EXPANSIONS = new Set([74, 75]);

/**
 * Where bash would brace-expand a word (-1: nowhere), given its unquoted text: an unquoted `{` whose matching `}` encloses
 * an unquoted top-level `,` or a `..` sequence. Conservative: any `,` or `..` inside a matched pair counts.
 */
export function braceExpansionAt(unquoted: string): number {
  for (let i = 0; i < unquoted.length; i++) {
    if (unquoted[i] !== "{" || (i > 0 && unquoted[i - 1] === "$")) continue;
    let depth = 0;
    for (let j = i; j < unquoted.length; j++) {
      const c = unquoted[j];
      if (c === "{") depth++;
      else if (c === "}") {
        depth--;
        if (depth === 0) {
          const inner = unquoted.slice(i + 1, j);
          if (inner.includes(",") || inner.includes("..")) return i;
          break;
        }
      }
    }
  }
  return -1;
}

/**
 * Where bash would tilde-expand part of a word (-1: nowhere), given its unquoted text: a `~` at the start, or after an
 * unquoted `=` or `:` (bash expands `a=~` and `x=~:~` even in ordinary arguments). Conservative: any `~` that
 * follows `=` or `:` counts, whatever precedes it.
 */
export function tildeExpansionAt(unquoted: string): number {
  const m = /(^|[=:])~/.exec(unquoted);
  return m === null ? -1 : m.index + m[1]!.length;
}

/** Outside quotes, a backslash quotes the next character; a backslash-newline disappears. */
function unescapeUnquoted(raw: string): string {
  return raw.replace(/\\(\n|[\s\S])/g, (_, c: string) => (c === "\n" ? "" : c));
}

/** Inside double quotes, a backslash quotes only `$`, `` ` ``, `"`, `\` and newline. */
function unescapeDoubleQuoted(raw: string): string {
  return raw.replace(/\\([$`"\\\n])/g, (_, c: string) => (c === "\n" ? "" : c));
}

/** Decodes the body of `$'...'` as bash does; `undefined` for an escape this decoder does not know. */
export function decodeAnsiC(body: string): string | undefined {
  let out = "";
  for (let i = 0; i < body.length; i++) {
    const c = body[i]!;
    if (c !== "\\") {
      out += c;
      continue;
    }
    const next = body[i + 1];
    if (next === undefined) return undefined;
    i++;
    const simple: Record<string, string> = {
      a: "\x07",
      b: "\b",
      e: "\x1b",
      E: "\x1b",
      f: "\f",
      n: "\n",
      r: "\r",
      t: "\t",
      v: "\v",
      "\\": "\\",
      "'": "'",
      '"': '"',
      "?": "?",
    };
    if (next in simple) {
      out += simple[next]!;
      continue;
    }
    const hex = (max: number): number | undefined => {
      const m = new RegExp(`^[0-9a-fA-F]{1,${max}}`).exec(body.slice(i + 1));
      if (m === null) return undefined;
      i += m[0].length;
      return parseInt(m[0], 16);
    };
    if (next === "x") {
      const code = hex(2);
      if (code === undefined) return undefined;
      out += String.fromCharCode(code);
      continue;
    }
    if (next === "u" || next === "U") {
      const code = hex(next === "u" ? 4 : 8);
      // Beyond ASCII, bash encodes the character in the locale's charset (in the C locale: the escape itself).
      if (code === undefined || code > 0x7f) return undefined;
      out += String.fromCodePoint(code);
      continue;
    }
    if (/[0-7]/.test(next)) {
      const m = /^[0-7]{1,3}/.exec(body.slice(i))!;
      i += m[0].length - 1;
      out += String.fromCharCode(parseInt(m[0], 8) & 0xff);
      continue;
    }
    if (next === "c") {
      const ctl = body[i + 1];
      if (ctl === undefined) return undefined;
      i++;
      out += String.fromCharCode(ctl.toUpperCase().charCodeAt(0) ^ 0x40);
      continue;
    }
    return undefined;
  }
  // A NUL ends the string in bash; a value with one is not what it looks like.
  return out.includes("\0") ? undefined : out;
}

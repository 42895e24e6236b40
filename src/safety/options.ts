/**
 * A model of git's option parsing, enough to know what every token of a command line means to git: long
 * options with unambiguous-prefix abbreviations and `--no-` negations, `--opt=value` and `--opt value`,
 * bundled short flags (`-nO<cmd>` is `-n -O<cmd>`), stuck short values (`-U3`), `--` and `--end-of-options`.
 *
 * The model is conservative where git's own rules differ between commands: a token that is a prefix of a
 * denied option is denied even where git would reject the abbreviation, and a value taken from the next token
 * is also read as an option, so a wrong guess about an option's arity can never hide a denied flag.
 */

export type ArgKind = "none" | "required" | "optional";

/** What an option means for the classifier. Plain options are safe; the rest say why not. */
export type Effect = { kind: "safe" } | { kind: "deny"; reason: string } | { kind: "ask"; reason: string } | { kind: "mode"; mode: string };

export interface OptionDef {
  /** Long names without the leading `--`. */
  long: string[];
  /** Short letters (each a one-character option meaning the same). */
  short: string[];
  arg: ArgKind;
  effect: Effect;
  /**
   * The value is plain text git only matches or compares (`--author`, `--since`, `-e <pattern>`): never a
   * file, a program, or a format that can run one (`--format=%G?` runs gpg). Only such a value may come from a
   * double-quoted shell parameter (`--author="$USER"`) and still be allowed.
   */
  plainValue?: boolean;
}

export interface OptionTable {
  defs: OptionDef[];
  byLong: Map<string, OptionDef>;
  byShort: Map<string, OptionDef>;
  /** `-<digits>` is an option (`git log -5`, `git grep -3`). */
  numeric: boolean;
}

const SAFE: Effect = { kind: "safe" };

/**
 * Builds a table from a compact spec: whitespace-separated entries `[s|]long[|long2][=|=?]`, where `s` is a
 * one-letter short option, `=` means a required value and `=?` an optional one (stuck only: `--opt=v`, `-Xv`).
 * A one-letter entry alone (`z`, `R=`) is a short-only option.
 */
export function table(spec: string, options: { numeric?: boolean } = {}): OptionTable {
  const defs: OptionDef[] = [];
  for (const entry of spec.trim().split(/\s+/)) {
    if (entry === "") continue;
    let body = entry;
    let arg: ArgKind = "none";
    if (body.endsWith("=?")) {
      arg = "optional";
      body = body.slice(0, -2);
    } else if (body.endsWith("=")) {
      arg = "required";
      body = body.slice(0, -1);
    }
    const names = body.split("|");
    const short = names.filter((n) => n.length === 1);
    const long = names.filter((n) => n.length > 1);
    defs.push({ long, short, arg, effect: SAFE });
  }
  return index(defs, options.numeric ?? false);
}

function index(defs: OptionDef[], numeric: boolean): OptionTable {
  const byLong = new Map<string, OptionDef>();
  const byShort = new Map<string, OptionDef>();
  for (const def of defs) {
    for (const name of def.long) byLong.set(name, def);
    for (const letter of def.short) byShort.set(letter, def);
  }
  return { defs, byLong, byShort, numeric };
}

/** Tables combined; later entries override earlier ones with the same name. */
export function merge(...tables: OptionTable[]): OptionTable {
  const defs: OptionDef[] = [];
  for (const t of tables) defs.push(...t.defs);
  const numeric = tables.some((t) => t.numeric);
  // Re-index so later definitions win, then keep only the definitions still reachable.
  const merged = index(defs, numeric);
  const reachable = new Set<OptionDef>([...merged.byLong.values(), ...merged.byShort.values()]);
  return index(
    defs.filter((d) => reachable.has(d)),
    numeric,
  );
}

/** Marks options (by long name or short letter) with an effect; the names must exist in the table. */
export function mark(t: OptionTable, names: string[], effect: Effect): OptionTable {
  const defs = t.defs.map((def) => {
    const hit = names.some((n) => (n.length === 1 ? def.short.includes(n) : def.long.includes(n)));
    return hit ? { ...def, effect } : def;
  });
  for (const n of names) {
    const known = n.length === 1 ? t.byShort.has(n) : t.byLong.has(n);
    if (!known) throw new Error(`mark: no option ${n} in the table`);
  }
  return index(defs, t.numeric);
}

/** Marks value-taking options as taking plain text (see `OptionDef.plainValue`); the names must exist. */
export function plain(t: OptionTable, names: string[]): OptionTable {
  for (const n of names) {
    const def = n.length === 1 ? t.byShort.get(n) : t.byLong.get(n);
    if (def === undefined) throw new Error(`plain: no option ${n} in the table`);
    if (def.arg === "none") throw new Error(`plain: option ${n} takes no value`);
  }
  const defs = t.defs.map((def) =>
    names.some((n) => (n.length === 1 ? def.short.includes(n) : def.long.includes(n))) ? { ...def, plainValue: true } : def,
  );
  return index(defs, t.numeric);
}

export function deny(reason: string): Effect {
  return { kind: "deny", reason };
}
export function ask(reason: string): Effect {
  return { kind: "ask", reason };
}
export function mode(name: string): Effect {
  return { kind: "mode", mode: name };
}

// ---------------------------------------------------------------------------------------------------------
// Parsing a subcommand's arguments against a table.

/**
 * One argument as the shell hands it over. `value` is its text when nothing in it is expanded; otherwise the
 * classifier knows only `prefix` (the literal text before the first expansion) and `kind`.
 */
export interface ArgToken {
  value: string | undefined;
  /** `literal`, `quoted-parameter` (exactly one argument, text unknown) or `dynamic` (any number of arguments). */
  kind: "literal" | "quoted-parameter" | "dynamic";
  prefix: string;
  /** As written in the command line. */
  source: string;
}

export function literalToken(value: string): ArgToken {
  return { value, kind: "literal", prefix: value, source: value };
}

/** One option as git would see it. */
export interface ParsedOption {
  def: OptionDef | undefined;
  /** How it was written, e.g. `--outp=/x` or `-O` inside `-nO/x`. */
  spelling: string;
  /** The long name it resolved to, or the short letter. */
  name: string;
  /** Its value; `undefined` when it has none, or when the value is expanded by the shell (`valueToken` says). */
  value: string | undefined;
  /** The token holding the value when the shell expands it (`--author="$A"`, `-e "$P"`). */
  valueToken?: ArgToken;
  /** Written as `--no-<name>`: the option it turns off (see `parseArgs`); `def` is then a plain flag. */
  negates?: OptionDef;
}

/** Where an expanded argument stands: what git would take it for. */
export type ExpandedRole = "value" | "positional" | "path" | "option";

export interface ExpandedArg {
  token: ArgToken;
  role: ExpandedRole;
  /** For `value` (and `option` with a known name): the option it belongs to. */
  option?: ParsedOption;
  /** For `option`: why its meaning is unknown (and `denied` when it may be a denied option). */
  why?: string;
  denied?: string;
}

export interface ParsedArgs {
  options: ParsedOption[];
  /** Non-option arguments before the end of options (literal ones; expanded ones are in `expanded`). */
  positionals: string[];
  /** Arguments after `--` (literal ones). */
  paths: string[];
  /** Whether `--` ended the options (a `--` taken as an option's value does not count). */
  dashdash: boolean;
  /** Tokens git would reject or that this model cannot place, with why. */
  unknown: Array<{ token: string; why: string }>;
  /** Denied options found by the conservative readings (prefixes, values read as options). */
  denied: Array<{ spelling: string; reason: string }>;
  /** Arguments the shell expands, with the role git gives them. */
  expanded: ExpandedArg[];
  /** How many positionals (literal and expanded) came before the end of options, in order. */
  positionalCount: number;
}

export interface ParseSettings {
  /** Whether git accepts unambiguous prefixes for this command (true for parse-options builtins). */
  abbreviations: boolean;
  /** Whether options may follow positionals (git permutes arguments for most commands). */
  stopAtPositional?: boolean;
  /**
   * Where `--` ends the options. `parsed` (parse-options builtins: grep, blame, branch, config, ls-files...): a
   * `--` right after an option that takes a value is that value (`grep -e --`), so the end of options is found
   * by parsing left to right. `first` (the revision machinery: log, show, diff, rev-list; revision.c
   * `setup_revisions` looks for the first `--` before it parses anything): the first `--` ends the options,
   * even after `--author`. Default: `parsed`.
   */
  dashdash?: "parsed" | "first";
}

type LongMatch =
  | { kind: "exact" | "abbrev"; def: OptionDef; name: string; negated: boolean }
  | { kind: "ambiguous"; names: string[] }
  | { kind: "none" };

/** Resolves a long option name (without `--` and `=value`) as git's parse-options would. */
export function matchLong(t: OptionTable, name: string, abbreviations: boolean): LongMatch {
  const exact = t.byLong.get(name);
  if (exact !== undefined) return { kind: "exact", def: exact, name, negated: false };
  if (name.startsWith("no-")) {
    const positive = t.byLong.get(name.slice(3));
    if (positive !== undefined) return { kind: "exact", def: positive, name, negated: true };
  }
  if (!abbreviations || name === "") return { kind: "none" };
  const candidates: Array<{ long: string; def: OptionDef; negated: boolean }> = [];
  for (const [long, def] of t.byLong) {
    if (long.startsWith(name)) candidates.push({ long, def, negated: false });
    if (name.startsWith("no-") && long.startsWith(name.slice(3)) && name.length > 3) {
      candidates.push({ long: `no-${long}`, def, negated: true });
    }
  }
  const distinct = new Set(candidates.map((c) => c.def));
  const first = candidates[0];
  if (distinct.size === 1 && first !== undefined && candidates.every((c) => c.negated === first.negated)) {
    return { kind: "abbrev", def: first.def, name: first.long, negated: first.negated };
  }
  if (candidates.length > 0) return { kind: "ambiguous", names: [...new Set(candidates.map((c) => c.long))].sort() };
  return { kind: "none" };
}

/** Denied long options of which `name` is a prefix: git may read the token as one of them. */
function deniedByPrefix(t: OptionTable, name: string): OptionDef | undefined {
  for (const [long, def] of t.byLong) {
    if (def.effect.kind === "deny" && long.startsWith(name)) return def;
  }
  return undefined;
}

function deniedShort(t: OptionTable): OptionDef | undefined {
  for (const def of t.byShort.values()) if (def.effect.kind === "deny") return def;
  return undefined;
}

/**
 * Parses `args` (the words after the subcommand) against `t`. Never throws; every token ends up as an option,
 * an option's value, a positional, a path after `--`, in `unknown`, or (when the shell expands it) in `expanded`
 * with the role it has.
 */
export function parseArgs(t: OptionTable, input: ReadonlyArray<string | ArgToken>, settings: ParseSettings): ParsedArgs {
  const args: ArgToken[] = input.map((a) => (typeof a === "string" ? literalToken(a) : a));
  const out: ParsedArgs = { options: [], positionals: [], paths: [], dashdash: false, unknown: [], denied: [], expanded: [], positionalCount: 0 };
  // The revision machinery cuts the arguments at the first literal `--` before parsing anything.
  const firstDashdash = settings.dashdash === "first" ? args.findIndex((a) => a.kind === "literal" && a.value === "--") : -1;
  let i = 0;
  let optionsEnded = false;
  const end = firstDashdash === -1 ? args.length : firstDashdash;
  const positional = (token: ArgToken): void => {
    out.positionalCount++;
    if (token.value !== undefined) out.positionals.push(token.value);
    else out.expanded.push({ token, role: "positional" });
  };
  while (i < end) {
    const token = args[i]!;
    i++;
    if (optionsEnded) {
      if (out.dashdash) {
        if (token.value !== undefined) out.paths.push(token.value);
        else out.expanded.push({ token, role: "path" });
      } else positional(token);
      continue;
    }
    if (token.value === undefined) {
      expandedToken(t, token, settings, out, positional);
      continue;
    }
    const text = token.value;
    if (text === "--") {
      out.dashdash = true;
      optionsEnded = true;
      continue;
    }
    if (text === "--end-of-options") {
      optionsEnded = true;
      continue;
    }
    if (!text.startsWith("-") || text === "-") {
      positional(token);
      if (settings.stopAtPositional === true) optionsEnded = true;
      continue;
    }
    const takeNext = (option: ParsedOption): void => {
      // Within the cut of `first` mode, a value never reaches past the first `--` (git dies: no value).
      if (i >= end) {
        out.unknown.push({ token: option.spelling, why: "it needs a value and has none (git refuses it)" });
        return;
      }
      const next = args[i]!;
      i++;
      if (next.value === undefined) {
        option.valueToken = next;
        out.expanded.push({ token: next, role: "value", option });
        return;
      }
      option.value = next.value;
      // The value might be read as an option if this model got the option's arity wrong: check it as one.
      if (next.value.startsWith("-") && next.value !== "-" && next.value !== "--") {
        const probe = parseArgs(t, [next.value], { ...settings, dashdash: "parsed" });
        out.denied.push(...probe.denied);
        for (const o of probe.options) {
          if (o.def?.effect.kind === "deny") out.denied.push({ spelling: next.value, reason: o.def.effect.reason });
        }
      }
    };
    if (text.startsWith("--")) {
      const eq = text.indexOf("=");
      const name = eq === -1 ? text.slice(2) : text.slice(2, eq);
      const inlineValue = eq === -1 ? undefined : text.slice(eq + 1);
      const match = matchLong(t, name, settings.abbreviations);
      if (match.kind === "exact" || match.kind === "abbrev") {
        const def = match.def;
        // git's options are last-wins: `--no-get` after `--get` leaves no --get (config then takes two words as
        // a setting, and writes it), and `--textconv` after `--no-textconv` leaves textconv on. What was denied
        // or asked about stays: git may act on it as it parses (`--output` opens its file there).
        out.options = out.options.filter((earlier) =>
          match.negated ? earlier.def !== def || earlier.def.effect.kind === "deny" || earlier.def.effect.kind === "ask" : earlier.negates !== def,
        );
        if (match.negated) {
          if (inlineValue !== undefined) out.unknown.push({ token: text, why: `--${match.name} takes no value` });
          out.options.push({ def: { ...def, effect: SAFE, arg: "none" }, spelling: text, name: match.name, value: undefined, negates: def });
          continue;
        }
        if (def.arg === "none" && inlineValue !== undefined) {
          out.unknown.push({ token: text, why: `--${match.name} takes no value` });
        }
        const option: ParsedOption = { def, spelling: text, name: match.name, value: inlineValue };
        out.options.push(option);
        if (def.arg === "required" && inlineValue === undefined) takeNext(option);
        continue;
      }
      const denied = name === "" ? undefined : deniedByPrefix(t, name);
      if (denied !== undefined && denied.effect.kind === "deny") {
        out.denied.push({ spelling: text, reason: denied.effect.reason });
        out.options.push({ def: denied, spelling: text, name: denied.long[0]!, value: inlineValue });
        continue;
      }
      out.unknown.push({
        token: text,
        why: match.kind === "ambiguous" ? `ambiguous abbreviation (${match.names.map((n) => `--${n}`).join(", ")})` : "unknown option",
      });
      continue;
    }
    // Short options: `-abc`, bundled; a value-taking letter takes the rest of the token (or the next token).
    if (t.numeric && /^-[0-9]+$/.test(text)) {
      out.options.push({ def: undefined, spelling: text, name: text.slice(1), value: text.slice(1) });
      continue;
    }
    for (let k = 1; k < text.length; k++) {
      const letter = text[k]!;
      const def = t.byShort.get(letter);
      if (def === undefined) {
        if (t.numeric && /[0-9]/.test(letter)) {
          // `-n5` style numbers after a letter are values; a bare digit run inside a bundle is a count.
          const digits = /^[0-9]+/.exec(text.slice(k))![0];
          out.options.push({ def: undefined, spelling: text, name: digits, value: digits });
          k += digits.length - 1;
          continue;
        }
        out.unknown.push({ token: text, why: `unknown option -${letter}` });
        // Keep reading the rest as letters: a denied letter later in the bundle must still be seen.
        continue;
      }
      const rest = text.slice(k + 1);
      if (def.arg === "none") {
        out.options.push({ def, spelling: text, name: letter, value: undefined });
        continue;
      }
      const option: ParsedOption = { def, spelling: text, name: letter, value: rest === "" ? undefined : rest };
      out.options.push(option);
      if (rest === "" && def.arg === "required") takeNext(option);
      break;
    }
  }
  if (firstDashdash !== -1) {
    out.dashdash = true;
    for (const token of args.slice(firstDashdash + 1)) {
      if (token.value !== undefined) out.paths.push(token.value);
      else out.expanded.push({ token, role: "path" });
    }
  }
  for (const o of out.options) {
    if (o.def?.effect.kind === "deny" && !out.denied.some((d) => d.spelling === o.spelling)) {
      out.denied.push({ spelling: o.spelling, reason: o.def.effect.reason });
    }
  }
  return out;
}

/**
 * An expanded token where git would parse an option: what the literal text before the expansion commits it
 * to. `--author="$A"` is `--author` with an unknown value; `--outp$X` may be `--output`; `"$X"` may be
 * anything, an option included; `HEAD~"$N"` is certainly a positional.
 */
function expandedToken(t: OptionTable, token: ArgToken, settings: ParseSettings, out: ParsedArgs, positional: (token: ArgToken) => void): void {
  const prefix = token.prefix;
  if (prefix !== "" && !prefix.startsWith("-")) {
    // Starts with literal text that is not a dash: git reads it as a positional, whatever follows.
    positional(token);
    if (settings.stopAtPositional === true) out.expanded[out.expanded.length - 1]!.why = "stops option parsing";
    return;
  }
  if (prefix.startsWith("--")) {
    const eq = prefix.indexOf("=");
    if (eq !== -1) {
      const name = prefix.slice(2, eq);
      const match = matchLong(t, name, settings.abbreviations);
      if ((match.kind === "exact" || match.kind === "abbrev") && !match.negated) {
        const option: ParsedOption = { def: match.def, spelling: token.source, name: match.name, value: undefined, valueToken: token };
        out.options.push(option);
        out.expanded.push({ token, role: "value", option });
        return;
      }
      const denied = deniedByPrefix(t, name);
      const entry: ExpandedArg = { token, role: "option", why: `--${name}= is not an option of this command` };
      if (denied !== undefined && denied.effect.kind === "deny") entry.denied = denied.effect.reason;
      out.expanded.push(entry);
      return;
    }
    // `--out$X`: the option's name itself is expanded; it may be any option that starts so.
    const denied = deniedByPrefix(t, prefix.slice(2));
    const entry: ExpandedArg = { token, role: "option", why: "the option's name is expanded by the shell" };
    if (denied !== undefined && denied.effect.kind === "deny") entry.denied = denied.effect.reason;
    out.expanded.push(entry);
    return;
  }
  if (prefix.startsWith("-") && prefix.length > 1) {
    // Short letters, then an expansion: a value-taking letter makes the rest its value.
    for (let k = 1; k < prefix.length; k++) {
      const def = t.byShort.get(prefix[k]!);
      if (def === undefined) break;
      if (def.arg !== "none") {
        const option: ParsedOption = { def, spelling: token.source, name: prefix[k]!, value: undefined, valueToken: token };
        out.options.push(option);
        if (def.effect.kind === "deny") out.denied.push({ spelling: token.source, reason: def.effect.reason });
        out.expanded.push({ token, role: "value", option });
        return;
      }
    }
  }
  // `"$X"`, `-"$X"`, `-p$X`: may be any option, a denied one included.
  const entry: ExpandedArg = { token, role: "option", why: "it may expand to an option" };
  const deniedLong = prefix === "" || prefix === "-" ? deniedByPrefix(t, "") : undefined;
  const denied = deniedLong ?? (prefix.startsWith("-") && !prefix.startsWith("--") ? deniedShort(t) : undefined);
  if (denied !== undefined && denied.effect.kind === "deny" && prefix.startsWith("-")) entry.denied = denied.effect.reason;
  out.expanded.push(entry);
}

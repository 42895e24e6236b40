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

/** One option as git would see it. */
export interface ParsedOption {
  def: OptionDef | undefined;
  /** How it was written, e.g. `--outp=/x` or `-O` inside `-nO/x`. */
  spelling: string;
  /** The long name it resolved to, or the short letter. */
  name: string;
  value: string | undefined;
}

export interface ParsedArgs {
  options: ParsedOption[];
  /** Non-option arguments before `--`. */
  positionals: string[];
  /** Arguments after `--`. */
  paths: string[];
  /** Whether `--` was present. */
  dashdash: boolean;
  /** Tokens git would reject or that this model cannot place, with why. */
  unknown: Array<{ token: string; why: string }>;
  /** Denied options found by the conservative readings (prefixes, values read as options). */
  denied: Array<{ spelling: string; reason: string }>;
}

export interface ParseSettings {
  /** Whether git accepts unambiguous prefixes for this command (true for parse-options builtins). */
  abbreviations: boolean;
  /** Whether options may follow positionals (git permutes arguments for most commands). */
  stopAtPositional?: boolean;
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
  if (name === "") return undefined;
  for (const [long, def] of t.byLong) {
    if (def.effect.kind === "deny" && long.startsWith(name)) return def;
  }
  return undefined;
}

/**
 * Parses `args` (the words after the subcommand) against `t`. Never throws; every token ends up as an option,
 * a positional, a path after `--`, or in `unknown`.
 */
export function parseArgs(t: OptionTable, args: readonly string[], settings: ParseSettings): ParsedArgs {
  const out: ParsedArgs = { options: [], positionals: [], paths: [], dashdash: false, unknown: [], denied: [] };
  let i = 0;
  let optionsEnded = false;
  while (i < args.length) {
    const token = args[i]!;
    i++;
    if (optionsEnded) {
      if (out.dashdash) out.paths.push(token);
      else out.positionals.push(token);
      continue;
    }
    if (token === "--") {
      out.dashdash = true;
      optionsEnded = true;
      continue;
    }
    if (token === "--end-of-options") {
      optionsEnded = true;
      continue;
    }
    if (!token.startsWith("-") || token === "-") {
      out.positionals.push(token);
      if (settings.stopAtPositional === true) optionsEnded = true;
      continue;
    }
    const takeNext = (): string | undefined => {
      const next = args[i];
      if (next === undefined) return undefined;
      i++;
      // The value might be read as an option if this model got the option's arity wrong: check it as one.
      if (next.startsWith("-") && next !== "-") {
        const probe = parseArgs(t, [next], settings);
        out.denied.push(...probe.denied);
        for (const o of probe.options) {
          if (o.def?.effect.kind === "deny") out.denied.push({ spelling: next, reason: o.def.effect.reason });
        }
      }
      return next;
    };
    if (token.startsWith("--")) {
      const eq = token.indexOf("=");
      const name = eq === -1 ? token.slice(2) : token.slice(2, eq);
      const inlineValue = eq === -1 ? undefined : token.slice(eq + 1);
      const match = matchLong(t, name, settings.abbreviations);
      if (match.kind === "exact" || match.kind === "abbrev") {
        const def = match.def;
        let value = inlineValue;
        if (match.negated) {
          if (inlineValue !== undefined) out.unknown.push({ token, why: `--${match.name} takes no value` });
          out.options.push({ def: { ...def, effect: SAFE, arg: "none" }, spelling: token, name: match.name, value: undefined });
          continue;
        }
        if (def.arg === "none" && inlineValue !== undefined) {
          out.unknown.push({ token, why: `--${match.name} takes no value` });
        }
        if (def.arg === "required" && value === undefined) value = takeNext();
        out.options.push({ def, spelling: token, name: match.name, value });
        continue;
      }
      const denied = deniedByPrefix(t, name);
      if (denied !== undefined && denied.effect.kind === "deny") {
        out.denied.push({ spelling: token, reason: denied.effect.reason });
        out.options.push({ def: denied, spelling: token, name: denied.long[0]!, value: inlineValue });
        continue;
      }
      out.unknown.push({
        token,
        why: match.kind === "ambiguous" ? `ambiguous abbreviation (${match.names.map((n) => `--${n}`).join(", ")})` : "unknown option",
      });
      continue;
    }
    // Short options: `-abc`, bundled; a value-taking letter takes the rest of the token (or the next token).
    if (t.numeric && /^-[0-9]+$/.test(token)) {
      out.options.push({ def: undefined, spelling: token, name: token.slice(1), value: token.slice(1) });
      continue;
    }
    for (let k = 1; k < token.length; k++) {
      const letter = token[k]!;
      const def = t.byShort.get(letter);
      if (def === undefined) {
        if (t.numeric && /[0-9]/.test(letter)) {
          // `-n5` style numbers after a letter are values; a bare digit run inside a bundle is a count.
          const digits = /^[0-9]+/.exec(token.slice(k))![0];
          out.options.push({ def: undefined, spelling: token, name: digits, value: digits });
          k += digits.length - 1;
          continue;
        }
        out.unknown.push({ token, why: `unknown option -${letter}` });
        // Keep reading the rest as letters: a denied letter later in the bundle must still be seen.
        continue;
      }
      const rest = token.slice(k + 1);
      if (def.arg === "none") {
        out.options.push({ def, spelling: token, name: letter, value: undefined });
        continue;
      }
      let value: string | undefined = rest === "" ? undefined : rest;
      if (value === undefined && def.arg === "required") value = takeNext();
      out.options.push({ def, spelling: token, name: letter, value });
      break;
    }
  }
  for (const o of out.options) {
    if (o.def?.effect.kind === "deny" && !out.denied.some((d) => d.spelling === o.spelling)) {
      out.denied.push({ spelling: o.spelling, reason: o.def.effect.reason });
    }
  }
  return out;
}

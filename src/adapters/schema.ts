/**
 * The input schemas the adapters send, from `ToolInfo.inputSchema` (zod's JSON Schema with `io: "input"`).
 *
 * Plain: the schema as it is, minus `$schema` (it names the dialect and constrains nothing, yet costs tokens in
 * every request). Strict: rewritten for a provider's constrained decoding, which accepts only a subset of JSON
 * Schema. What that subset cannot express is refused with an error naming the tool, the property and the keyword,
 * never dropped in silence; on request (`unsupported: "describe"`) value constraints such as `minLength` move
 * into the description instead, as Anthropic's own SDK does, and the toolbox still enforces them when the tool
 * runs (a call that breaks one gets `invalid_input`).
 *
 * The subsets, from the providers' documentation:
 * - OpenAI, "Structured Outputs: supported schemas"
 *   (https://platform.openai.com/docs/guides/structured-outputs#supported-schemas) and function calling
 *   (https://platform.openai.com/docs/guides/function-calling#strict-mode): types string, number, integer,
 *   boolean, object, array, null, enum, anyOf (not at the root); string `pattern`, `format`; number
 *   `multipleOf`, `maximum`, `exclusiveMaximum`, `minimum`, `exclusiveMinimum`; array `minItems`, `maxItems`;
 *   `$defs`/`$ref`. Every object sets `additionalProperties: false` and lists every property in `required`; an
 *   optional field is a union with `null`. Annotations as the official SDK treats them (openai-node
 *   `src/lib/transform.ts`): `description`, `title`, `default`, `examples`, `$comment`, `readOnly`, `writeOnly`.
 * - Anthropic, "Structured outputs: JSON Schema limitations"
 *   (https://platform.claude.com/docs/en/build-with-claude/structured-outputs#json-schema-limitations) and
 *   "Strict tool use" (https://platform.claude.com/docs/en/agents-and-tools/tool-use/strict-tool-use): basic
 *   types, `enum` and `const` of primitives, `anyOf`, `allOf`, local `$ref`/`$defs`, `required`,
 *   `additionalProperties: false` on every object, the listed string formats, `minItems` of 0 or 1 only; no
 *   numeric constraints (`minimum`, `maximum`, `multipleOf`), no string length constraints. Where the docs are
 *   vague (`pattern`, `default`), the official SDK's transform (anthropic-sdk-typescript
 *   `src/lib/transform-json-schema.ts`) decides: `pattern` is not sent, `default` is kept as an annotation.
 */
import { GitctxError } from "../errors.js";

/** A JSON Schema object, as plain JSON. */
export type JsonSchema = Record<string, unknown>;

export type StrictTarget = "openai" | "anthropic";

/**
 * What to do with a value constraint strict mode cannot express: `"error"` (default) refuses the tool;
 * `"describe"` moves the constraint into the description, where the model reads it, and leaves the check to the
 * toolbox. Structure strict mode cannot express (an open object, `not`, `if`/`then`/`else`...) is refused either way.
 */
export type UnsupportedPolicy = "error" | "describe";

/** The schema without `$schema` at its root. */
export function plainSchema(schema: JsonSchema): JsonSchema {
  const { $schema: _dialect, ...rest } = schema;
  return rest;
}

interface Profile {
  label: string;
  /** Kept as they are: they describe, they do not constrain. */
  annotations: ReadonlySet<string>;
  /** Value constraints the target enforces; `accepts` narrows the values it takes. */
  constraints: ReadonlySet<string>;
  accepts(keyword: string, value: unknown): boolean;
  /** Whether every property must be listed in `required` (optional ones become unions with `null`). */
  requireAll: boolean;
  /** Whether `allOf` is accepted (`anyOf` always is). */
  allOf: boolean;
  /** Whether `enum` and `const` take only primitive values. */
  primitiveLiterals: boolean;
}

const OPENAI_FORMATS = new Set(["date-time", "time", "date", "duration", "email", "hostname", "ipv4", "ipv6", "uuid"]);
const ANTHROPIC_FORMATS = new Set(["date-time", "time", "date", "duration", "email", "hostname", "uri", "ipv4", "ipv6", "uuid"]);

const PROFILES: Record<StrictTarget, Profile> = {
  openai: {
    label: "OpenAI strict mode",
    annotations: new Set(["description", "title", "default", "examples", "$comment", "readOnly", "writeOnly"]),
    constraints: new Set(["pattern", "format", "multipleOf", "maximum", "exclusiveMaximum", "minimum", "exclusiveMinimum", "minItems", "maxItems"]),
    accepts: (keyword, value) => keyword !== "format" || OPENAI_FORMATS.has(String(value)),
    requireAll: true,
    allOf: false,
    primitiveLiterals: false,
  },
  anthropic: {
    label: "Anthropic strict tool use",
    annotations: new Set(["description", "title", "default"]),
    constraints: new Set(["format", "minItems"]),
    accepts: (keyword, value) =>
      keyword === "format" ? ANTHROPIC_FORMATS.has(String(value)) : keyword === "minItems" ? value === 0 || value === 1 : true,
    requireAll: false,
    allOf: true,
    primitiveLiterals: true,
  },
};

/** Constraints on values with a scalar argument: a model can read them in a description and the toolbox checks them. */
const DESCRIBABLE = new Set([
  "minLength",
  "maxLength",
  "pattern",
  "format",
  "minimum",
  "maximum",
  "exclusiveMinimum",
  "exclusiveMaximum",
  "multipleOf",
  "minItems",
  "maxItems",
  "uniqueItems",
  "minProperties",
  "maxProperties",
  "minContains",
  "maxContains",
  "contentEncoding",
  "contentMediaType",
]);

/** Handled one by one below, whatever the profile. */
const STRUCTURE = new Set([
  "type",
  "properties",
  "required",
  "additionalProperties",
  "items",
  "enum",
  "const",
  "anyOf",
  "allOf",
  "$ref",
  "$defs",
  "definitions",
]);

interface Problem {
  path: string;
  keyword: string;
  describable: boolean;
}

interface Walk {
  profile: Profile;
  policy: UnsupportedPolicy;
  problems: Problem[];
}

/**
 * The input schema of `tool` rewritten for `target`'s strict mode. Throws a `GitctxError` (`invalid_input`)
 * naming the tool, each property and keyword it cannot express, and what to do instead.
 */
export function strictSchema(tool: string, schema: JsonSchema, target: StrictTarget, policy: UnsupportedPolicy = "error"): JsonSchema {
  const walk: Walk = { profile: PROFILES[target], policy, problems: [] };
  const root = plainSchema(schema);
  if (root.type !== "object")
    walk.problems.push({ path: "", keyword: root.anyOf !== undefined ? "anyOf at the root" : "a root that is not an object", describable: false });
  const result = visit(root, "", walk) as JsonSchema;
  if (walk.problems.length > 0) throw refusal(tool, walk);
  return result;
}

function refusal(tool: string, walk: Walk): GitctxError {
  const byPath = new Map<string, string[]>();
  for (const problem of walk.problems) byPath.set(problem.path, [...(byPath.get(problem.path) ?? []), problem.keyword]);
  const parts = [...byPath].map(([path, keywords]) => `${path === "" ? "the schema" : path} uses ${keywords.join(", ")}`);
  const describable = walk.problems.every((problem) => problem.describable);
  return new GitctxError(
    "invalid_input",
    `${walk.profile.label} cannot express the input schema of ${tool}: ${parts.join("; ")}.`,
    describable
      ? `Pass unsupported: "describe" to move these constraints into the descriptions (the toolbox still enforces them when ${tool} runs), leave strict off, or leave ${tool} out (tools: [...]).`
      : `Leave strict off, or leave ${tool} out (tools: [...]).`,
  );
}

function visit(node: unknown, path: string, walk: Walk): unknown {
  if (typeof node === "boolean") {
    walk.problems.push({ path, keyword: `the boolean schema ${node}`, describable: false });
    return node;
  }
  if (!isObject(node)) return node;
  const { profile } = walk;
  const out: JsonSchema = {};
  const described: [string, unknown][] = [];

  for (const [keyword, value] of Object.entries(node)) {
    if (STRUCTURE.has(keyword)) continue;
    if (profile.annotations.has(keyword)) {
      out[keyword] = value;
    } else if (profile.constraints.has(keyword) && profile.accepts(keyword, value)) {
      out[keyword] = value;
    } else if (DESCRIBABLE.has(keyword)) {
      if (walk.policy === "describe") described.push([keyword, value]);
      else
        walk.problems.push({ path, keyword: profile.constraints.has(keyword) ? `${keyword} ${JSON.stringify(value)}` : keyword, describable: true });
    } else {
      walk.problems.push({ path, keyword, describable: false });
    }
  }

  if (node.type !== undefined) out.type = node.type;
  if (node.enum !== undefined) {
    if (profile.primitiveLiterals && !(Array.isArray(node.enum) && node.enum.every(isPrimitive)))
      walk.problems.push({ path, keyword: "enum of non-primitive values", describable: false });
    out.enum = node.enum;
  }
  if (node.const !== undefined) {
    if (profile.primitiveLiterals && !isPrimitive(node.const))
      walk.problems.push({ path, keyword: "const of a non-primitive value", describable: false });
    out.const = node.const;
  }
  if (node.$ref !== undefined) {
    if (typeof node.$ref !== "string" || !node.$ref.startsWith("#"))
      walk.problems.push({ path, keyword: "a $ref outside the schema", describable: false });
    out.$ref = node.$ref;
  }
  for (const defs of ["$defs", "definitions"] as const) {
    const entries = node[defs];
    if (isObject(entries)) out[defs] = mapValues(entries, (child, key) => visit(child, join(path, `${defs}.${key}`), walk));
  }
  if (Array.isArray(node.anyOf)) out.anyOf = node.anyOf.map((child, index) => visit(child, join(path, `anyOf[${index}]`), walk));
  if (node.allOf !== undefined) {
    if (!profile.allOf) walk.problems.push({ path, keyword: "allOf", describable: false });
    if (Array.isArray(node.allOf)) out.allOf = node.allOf.map((child, index) => visit(child, join(path, `allOf[${index}]`), walk));
  }
  if (node.items !== undefined) {
    if (Array.isArray(node.items)) walk.problems.push({ path, keyword: "tuple items", describable: false });
    out.items = visit(node.items, `${path}[]`, walk);
  }

  if (node.type === "object" || isObject(node.properties)) {
    const properties = isObject(node.properties) ? node.properties : {};
    const required = Array.isArray(node.required) ? node.required.filter((key): key is string => typeof key === "string") : [];
    out.properties = mapValues(properties, (child, key) => {
      const strict = visit(child, join(path, key), walk);
      return profile.requireAll && !required.includes(key) ? nullable(strict) : strict;
    });
    const listed = profile.requireAll ? Object.keys(properties) : required;
    if (listed.length > 0) out.required = listed;
    if (node.additionalProperties !== undefined && node.additionalProperties !== false) {
      walk.problems.push({ path, keyword: "additionalProperties other than false (an open object)", describable: false });
    }
    out.additionalProperties = false;
  }

  if (described.length > 0) {
    const note = `{${described.map(([keyword, value]) => `${keyword}: ${JSON.stringify(value)}`).join(", ")}}`;
    out.description = typeof out.description === "string" && out.description !== "" ? `${out.description} ${note}` : note;
  }
  return out;
}

/** `schema`, or `null`: a type list where the schema has a plain type, else `anyOf` with the annotations outside. */
function nullable(schema: unknown): unknown {
  if (!isObject(schema) || acceptsNull(schema)) return schema;
  const { type } = schema;
  if (typeof type === "string" || Array.isArray(type)) {
    const widened: JsonSchema = { ...schema, type: [...(Array.isArray(type) ? type : [type]), "null"] };
    if (Array.isArray(schema.enum)) widened.enum = [...schema.enum, null];
    if (schema.const !== undefined) {
      delete widened.const;
      widened.enum = [schema.const, null];
    }
    return widened;
  }
  const { description, title, default: fallback, ...rest } = schema;
  const wrapper: JsonSchema = { anyOf: [rest, { type: "null" }] };
  if (description !== undefined) wrapper.description = description;
  if (title !== undefined) wrapper.title = title;
  if (fallback !== undefined) wrapper.default = fallback;
  return wrapper;
}

function acceptsNull(schema: unknown): boolean {
  if (schema === true) return true;
  if (!isObject(schema)) return false;
  if (schema.type === "null" || (Array.isArray(schema.type) && schema.type.includes("null"))) return true;
  if (schema.const === null || (Array.isArray(schema.enum) && schema.enum.includes(null))) return true;
  return Array.isArray(schema.anyOf) && schema.anyOf.some(acceptsNull);
}

/**
 * A strict call's input with `null` read as "absent" wherever the original schema made the property optional
 * and does not itself take `null`: strict mode makes the model send every property, `null` for the ones it
 * leaves out, and the tool then applies its default. Other values pass through untouched, so the toolbox still
 * judges them.
 */
export function nullsAsAbsent(schema: JsonSchema, input: unknown): unknown {
  if (!isObject(input)) return input;
  const properties = isObject(schema.properties) ? schema.properties : undefined;
  if (properties === undefined) return input;
  const required = Array.isArray(schema.required) ? schema.required : [];
  const out: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(input)) {
    const property = properties[key];
    if (value === null && property !== undefined && !required.includes(key) && !acceptsNull(property)) continue;
    out[key] = isObject(property) ? nullsAsAbsentDeep(property, value) : value;
  }
  return out;
}

function nullsAsAbsentDeep(schema: JsonSchema, value: unknown): unknown {
  if (Array.isArray(value) && isObject(schema.items)) {
    const items = schema.items;
    return value.map((item) => nullsAsAbsentDeep(items, item));
  }
  return isObject(value) ? nullsAsAbsent(schema, value) : value;
}

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

function isPrimitive(value: unknown): boolean {
  return value === null || typeof value !== "object";
}

function mapValues(record: Record<string, unknown>, map: (value: unknown, key: string) => unknown): Record<string, unknown> {
  return Object.fromEntries(Object.entries(record).map(([key, value]) => [key, map(value, key)]));
}

function join(path: string, key: string): string {
  return path === "" ? key : `${path}.${key}`;
}

import * as z from "zod";
import type { SessionWatch } from "../session/watch-handle.js";
import { plural } from "../text.js";
import { renderWatchChanges } from "../watch/render.js";
import { WATCH_CATEGORIES, type WatchChanges, type WatchEvent, type WatchEventKind } from "../watch/types.js";
import { countSchema, type Assert, type Exact } from "./outputs.js";
import { defineTool, type ToolSession } from "./tool.js";

/** Events one answer holds at most, the most recent ones: older ones are counted in `dropped`. */
export const MAX_CHANGES = 100;

export interface GitChangesData extends WatchChanges {
  /** This call started watching: nothing from before it is known, and `events` is empty. */
  started: boolean;
  /** The root the events' relative paths are relative to. */
  root: string;
}

const inputSchema = z.strictObject({
  since: z
    .number()
    .int()
    .min(0)
    .optional()
    .describe("The seq of your previous git_changes answer: only what changed after it. Default 0: every change still held."),
});

const FILE_KINDS = ["add", "change", "unlink", "rename", "bulk"] as const;
const GIT_KINDS = [
  "branch_switched",
  "detached",
  "commit",
  "reset",
  "head_moved",
  "stash",
  "merge_started",
  "merge_finished",
  "merge_aborted",
  "rebase_started",
  "rebase_finished",
  "rebase_aborted",
  "cherry_pick_started",
  "cherry_pick_finished",
  "cherry_pick_aborted",
  "revert_started",
  "revert_finished",
  "revert_aborted",
  "am_started",
  "am_finished",
  "am_aborted",
  "bisect_started",
  "bisect_finished",
  "bisect_aborted",
  "staged",
  "unstaged",
  "upstream_moved",
  "refs_updated",
  "fetch",
  "config_changed",
  "excludes_changed",
  "worktrees_changed",
] as const;
const WATCHER_KINDS = ["degraded", "root_changed", "error"] as const;
const KINDS = [...FILE_KINDS, ...GIT_KINDS, ...WATCHER_KINDS] as const;
type _KindsAreEveryKind = Assert<Exact<(typeof KINDS)[number], WatchEventKind>>;

const refMoveSchema = z.strictObject({ ref: z.string(), from: z.string().nullable(), to: z.string().nullable() });

const degradedSchema = z.strictObject({
  reason: z.enum(["watch_limit", "ENOSPC", "EMFILE"]),
  mode: z.literal("polling"),
  intervalMs: countSchema,
  since: z.string(),
  watches: countSchema,
  maxWatches: countSchema,
  message: z.string(),
  hint: z.string(),
});

const eventSchema = z.strictObject({
  seq: countSchema,
  time: z.string(),
  category: z.enum(WATCH_CATEGORIES),
  kind: z.enum(KINDS),
  paths: z
    .array(z.string())
    .describe("Relative to root when inside it, else absolute; [from, to] for a rename; a sample for bulk (count says how many)."),
  count: countSchema,
  summary: z.string(),
  counts: z.strictObject({ added: countSchema, changed: countSchema, deleted: countSchema, renamed: countSchema }).optional(),
  git: z
    .strictObject({
      fromBranch: z.string().nullable().optional(),
      toBranch: z.string().nullable().optional(),
      fromOid: z.string().nullable().optional(),
      toOid: z.string().nullable().optional(),
      reason: z.string().optional(),
      operation: z.enum(["merge", "rebase", "cherry-pick", "revert", "am", "bisect"]).optional(),
      conflicted: z.array(z.string()).optional(),
      refs: z.array(refMoveSchema).optional(),
      worktrees: z.strictObject({ added: z.array(z.string()), removed: z.array(z.string()) }).optional(),
      stash: z.strictObject({ action: z.enum(["push", "drop", "changed"]), entries: countSchema }).optional(),
    })
    .optional(),
  cause: z
    .strictObject({ seq: countSchema, kind: z.enum(KINDS) })
    .optional()
    .describe("The git event whose checkout changed these files."),
  degraded: degradedSchema.optional(),
});
type _EventMatches = Assert<Exact<z.output<typeof eventSchema>, WatchEvent>>;

const outputSchema = z.strictObject({
  seq: countSchema.describe("The newest sequence number: pass it as since next time."),
  since: countSchema,
  events: z.array(eventSchema).describe(`Oldest first; at most the ${MAX_CHANGES} most recent.`),
  dropped: countSchema.describe(`Changes after since not listed: no longer held, or older than the ${MAX_CHANGES} most recent.`),
  degraded: degradedSchema.nullable().describe("Set while the watcher polls instead of watching natively (too many directories)."),
  started: z.boolean(),
  root: z.string(),
});
type _OutputMatchesData = Assert<Exact<z.output<typeof outputSchema>, GitChangesData>>;

/** The handle `git_changes` keeps on each session's watcher: watching goes on between calls, until the session closes. */
const handles = new WeakMap<ToolSession, SessionWatch>();

export const gitChanges = defineTool({
  name: "git_changes",
  title: "Changes since you last looked",
  description:
    "What changed in the workspace while you worked: files the user or their tools created, edited, deleted or renamed, " +
    "and git events (branch switched, commit, reset, stash, merge or rebase started or finished, staged), numbered. " +
    "The first call starts watching and returns the current seq; then pass the seq of each answer as since. Call it " +
    "at the start of a turn and before you edit a file you read earlier. Prefer this over running git_status again to " +
    "learn what the user did: it says what happened, not only the state, and starts no git process after the first call.",
  // Not "changes": the name has it, and "staged changes" is git_status's or git_diff's question.
  keywords: ["changed", "watch", "events", "since", "modified", "edited", "user", "files", "fresh", "stale", "notify"],
  permission: "read-only",
  requires: "workspace",
  inputSchema,
  outputSchema,
  async run(input, { session }) {
    let handle = handles.get(session);
    let opened = false;
    if (handle === undefined || handle.closed) {
      handle = session.watch();
      handles.set(session, handle);
      opened = true;
    }
    // Outside a repository this rejects (not_a_repository), and the handle is closed: the next call tries again.
    await handle.ready;
    const started = opened && handle.started;
    const since = input.since ?? 0;
    const all = handle.events(since);
    const cut = Math.max(0, all.events.length - MAX_CHANGES);
    const changes: WatchChanges = cut === 0 ? all : { ...all, events: all.events.slice(cut), dropped: all.dropped + cut };
    const root = handle.status()?.location.root ?? session.root;
    const data: GitChangesData = { ...changes, started, root };
    return { data, text: changesText(data) };
  },
});

function changesText(data: GitChangesData): string {
  const lines: string[] = [];
  if (data.started) {
    lines.push(`Watching ${data.root} from now on: changes made before this call are not known (read them with git_status).`);
  }
  if (data.since > data.seq) {
    lines.push(
      `since ${data.since} is after the newest change (${data.seq}): it is not from this session's watcher. ` +
        `Ask for changes since ${data.seq}, and read the current state with git_status.`,
    );
  }
  const shown = data.events.length;
  if (data.dropped > 0 && shown === MAX_CHANGES) lines.push(`Only the ${plural(shown, "most recent change")} are listed.`);
  lines.push(renderWatchChanges(data));
  return lines.join("\n");
}

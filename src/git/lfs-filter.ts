/**
 * gitctx's own Git LFS clean filter, as the source of a program git runs as the `lfs` driver's long-running
 * filter process (git's filter protocol, version 2) in place of git-lfs. Why it exists, and why it is a process:
 * git compares a stat-dirty work tree file with its index entry through the clean filter, and for a file tracked
 * by LFS the index holds a pointer (`version https://git-lfs.github.com/spec/v1`, `oid sha256:<hex>`, `size <n>`),
 * so without a clean filter a merely touched file reads as modified and a modified one diffs its raw bytes
 * against the pointer. Only git can fold the cleaned content into its answers (its stat refresh, racy-entry rules,
 * diffs and counts), and git takes cleaned content only from a filter program: so gitctx gives it one of its own,
 * which never comes from any config. It reads only what git sends on stdin and writes only to stdout: no file, no
 * network, no other program; it does what git-lfs's clean does without storing the object in `.git/lfs`.
 *
 * Clean, byte for byte as git-lfs (lfs/gitfilter_clean.go, lfs/pointer.go; checked against git-lfs 3.3 by
 * test/lfs.test.ts): empty content stays empty; content under 1024 bytes that git-lfs parses as a pointer (an
 * unpulled file, or one checked out with GIT_LFS_SKIP_SMUDGE) is passed on unchanged; anything else becomes the
 * pointer of its SHA-256 and size. Smudge (a checkout) leaves the blob as it is, so a pointer stays a pointer, as
 * with GIT_LFS_SKIP_SMUDGE: gitctx fetches nothing. Plain JavaScript for Node, kept as text so that the same
 * bytes run from the sources (tests) and from the build, and written by the runner into its private directory.
 */
export const LFS_FILTER_SOURCE = String.raw`"use strict";
const { createHash } = require("node:crypto");

const MAX_DATA = 65516;
const CUTOFF = 1024;

// Input: a queue of chunks read from git, taken from in exact byte counts.
const queue = [];
let queued = 0;
let ended = false;
let wake = null;
process.stdin.on("data", (chunk) => {
  queue.push(chunk);
  queued += chunk.length;
  if (wake !== null) wake();
});
process.stdin.on("end", () => {
  ended = true;
  if (wake !== null) wake();
});
process.stdin.on("error", () => process.exit(3));
process.stdout.on("error", () => process.exit(3));

async function take(count) {
  while (queued < count) {
    if (ended) return null;
    await new Promise((resolve) => (wake = resolve));
    wake = null;
  }
  const parts = [];
  let need = count;
  while (need > 0) {
    const head = queue[0];
    if (head.length <= need) {
      parts.push(head);
      queue.shift();
      need -= head.length;
    } else {
      parts.push(head.subarray(0, need));
      queue[0] = head.subarray(need);
      need = 0;
    }
  }
  queued -= count;
  return parts.length === 1 ? parts[0] : Buffer.concat(parts, count);
}

const FLUSH = "flush";

/** One packet's data, FLUSH, or null at the end of input. */
async function packet() {
  const header = await take(4);
  if (header === null) return null;
  const text = header.toString("latin1");
  if (!/^[0-9a-f]{4}$/.test(text)) fail("bad packet header");
  const length = parseInt(text, 16);
  if (length === 0) return FLUSH;
  if (length < 4) fail("unexpected special packet");
  const data = await take(length - 4);
  if (data === null) fail("input ended inside a packet");
  return data;
}

/** Text packets up to a flush, each without its newline. */
async function textList() {
  const lines = [];
  for (;;) {
    const data = await packet();
    if (data === null) return lines.length === 0 ? null : fail("input ended inside a list");
    if (data === FLUSH) return lines;
    lines.push(data.toString("latin1").replace(/\n$/, ""));
  }
}

function fail(why) {
  process.stderr.write("gitctx lfs filter: " + why + "\n");
  process.exit(2);
}

function encode(data) {
  return Buffer.concat([Buffer.from((data.length + 4).toString(16).padStart(4, "0"), "latin1"), data]);
}
const FLUSH_PACKET = Buffer.from("0000", "latin1");
function textPacket(line) {
  return encode(Buffer.from(line + "\n", "latin1"));
}
function contentPackets(content) {
  const out = [];
  for (let at = 0; at < content.length; at += MAX_DATA) out.push(encode(content.subarray(at, at + MAX_DATA)));
  out.push(FLUSH_PACKET);
  return out;
}

// Go's bytes.TrimSpace: ASCII white space and the UTF-8 encodings of Unicode's White_Space runes.
const SPACE = "(?:[\\t\\n\\v\\f\\r ]|\\xc2[\\x85\\xa0]|\\xe1\\x9a\\x80|\\xe2\\x80[\\x80-\\x8a\\xa8\\xa9\\xaf]|\\xe2\\x81\\x9f|\\xe3\\x80\\x80)";
const LEADING = new RegExp("^" + SPACE + "+");
const TRAILING = new RegExp(SPACE + "+$");
const VERSIONS = ["http://git-media.io/v/2", "https://hawser.github.com/spec/v1", "https://git-lfs.github.com/spec/v1"];
const KEYS = ["version", "oid", "size"];

function validOid(value) {
  const colon = value.indexOf(":");
  return colon !== -1 && value.slice(0, colon) === "sha256" && /^[0-9a-f]{64}$/.test(value.slice(colon + 1));
}

/** Whether git-lfs reads these bytes (fewer than 1024) as a pointer, which its clean filter passes on unchanged. */
function isPointer(bytes) {
  const data = bytes.toString("latin1").replace(LEADING, "").replace(TRAILING, "");
  if (!/git-media|hawser|git-lfs/.test(data)) return false;
  const values = new Map();
  const extensions = new Map();
  let line = 0;
  for (let text of data.split("\n")) {
    if (text.endsWith("\r")) text = text.slice(0, -1);
    if (text.length === 0) continue;
    const space = text.indexOf(" ");
    if (space === -1) return false;
    const key = text.slice(0, space);
    const value = text.slice(space + 1);
    if (line >= KEYS.length) return false;
    if (key !== KEYS[line]) {
      if (!/^ext-[0-9]-[0-9A-Za-z_]/.test(key)) return false;
      extensions.set(key, value);
      continue;
    }
    line++;
    values.set(key, value);
  }
  if (!VERSIONS.includes(values.get("version") ?? "")) return false;
  if (!values.has("oid") || !validOid(values.get("oid"))) return false;
  const size = values.get("size") ?? "";
  if (!/^[+-]?[0-9]+$/.test(size)) return false;
  const number = BigInt(size);
  if (number < 0n || number > 9223372036854775807n) return false;
  const priorities = new Set();
  for (const [key, value] of extensions) {
    const priority = key.charAt(4);
    if (!validOid(value) || priorities.has(priority)) return false;
    priorities.add(priority);
  }
  return true;
}

/** What git-lfs's clean filter writes for this content (given in pieces as git sends it). */
function cleaned(hash, head, size) {
  if (size === 0) return Buffer.alloc(0);
  if (size < CUTOFF && isPointer(head)) return head;
  return Buffer.from("version https://git-lfs.github.com/spec/v1\noid sha256:" + hash.digest("hex") + "\nsize " + size + "\n", "latin1");
}

async function main() {
  const hello = await textList();
  if (hello === null || hello[0] !== "git-filter-client" || !hello.includes("version=2")) fail("not git's filter protocol v2");
  process.stdout.write(Buffer.concat([textPacket("git-filter-server"), textPacket("version=2"), FLUSH_PACKET]));
  const offered = await textList();
  if (offered === null) fail("no capabilities");
  const answer = ["capability=clean", "capability=smudge"].filter((capability) => offered.includes(capability));
  process.stdout.write(Buffer.concat([...answer.map(textPacket), FLUSH_PACKET]));
  for (;;) {
    const request = await textList();
    if (request === null) return;
    const command = request.find((line) => line.startsWith("command="));
    const hash = createHash("sha256");
    const held = [];
    let heldBytes = 0;
    let size = 0;
    for (;;) {
      const data = await packet();
      if (data === null) fail("input ended inside content");
      if (data === FLUSH) break;
      if (command === "command=clean") {
        hash.update(data);
        if (heldBytes < CUTOFF) {
          held.push(data);
          heldBytes += data.length;
        }
      } else {
        held.push(data);
      }
      size += data.length;
    }
    let output;
    if (command === "command=clean") output = cleaned(hash, Buffer.concat(held).subarray(0, CUTOFF), size);
    // Smudge leaves the blob as it is (a pointer stays a pointer, as with GIT_LFS_SKIP_SMUDGE): gitctx fetches nothing.
    else if (command === "command=smudge") output = Buffer.concat(held);
    if (output === undefined) {
      process.stdout.write(Buffer.concat([textPacket("status=error"), FLUSH_PACKET]));
      continue;
    }
    process.stdout.write(Buffer.concat([textPacket("status=success"), FLUSH_PACKET, ...contentPackets(output), FLUSH_PACKET]));
  }
}

main().then(
  () => undefined,
  (error) => fail(String(error)),
);
`;

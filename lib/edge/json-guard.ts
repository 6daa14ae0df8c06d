/**
 * Nesting deeper than this is refused before JSON.parse. No data-plane body needs more than a
 * handful of levels (execute's http_json inputs are the deepest); 4 million levels within
 * execute's 8 MB took 18 s to parse and walk.
 */
export const MAX_JSON_DEPTH = 64;

/**
 * Keys and array elements together (colons and commas outside strings) past this are refused
 * before JSON.parse: parsing and validating is linear in them, and a 1.7 MB execute body of
 * 87,000 attribute keys held the event loop about a second here (parse, key count, zod). The
 * largest valid body, an outcomes batch of 1,000 with every field, has about 18,000. Long strings
 * (an LLM prompt) do not count.
 */
export const MAX_JSON_MEMBERS = 25_000;

const QUOTE = 0x22;
const BACKSLASH = 0x5c;

/** What a byte outside strings is to the scan; a table lookup took a third less time than a chain of comparisons. */
const OTHER = 0;
const OPEN_STRING = 1;
const COLON = 2;
const COMMA = 3;
const OPEN = 4;
const CLOSE = 5;
const CLASS = new Uint8Array(256);
CLASS[QUOTE] = OPEN_STRING;
CLASS[0x3a] = COLON;
CLASS[0x2c] = COMMA;
CLASS[0x7b] = OPEN;
CLASS[0x5b] = OPEN;
CLASS[0x7d] = CLOSE;
CLASS[0x5d] = CLOSE;

/**
 * A linear scan of a JSON body's bytes as they arrive, chunk by chunk, outside strings: it
 * tracks nesting and counts members (colons and commas), so a body too deep or too many-membered
 * is refused while it is still being read, and counts the colons, one per key in valid JSON. It does not validate (JSON.parse still does) and allocates
 * nothing, so it stays cheap on decide's hot path: a repeated key is found by comparing `keys`
 * with the keys JSON.parse kept (`countKeys`), and only then named (`findDuplicateKey`).
 */
export class JsonScan {
  private depth = 0;
  private inString = false;
  private escaped = false;
  /** Nesting passed the limit; the scan stopped there. */
  tooDeep = false;
  /** Members passed the limit; the scan stopped there. */
  tooMany = false;
  /** Keys in the body so far (colons outside strings). */
  keys = 0;
  private commas = 0;

  constructor(
    readonly maxDepth = MAX_JSON_DEPTH,
    readonly maxMembers = MAX_JSON_MEMBERS,
  ) {}

  feed(chunk: Buffer): void {
    if (this.tooDeep || this.tooMany) return;
    let { depth, inString, escaped, keys, commas } = this;
    const max = this.maxDepth;
    for (let i = 0, n = chunk.length; i < n; i++) {
      const c = chunk[i]!;
      if (inString) {
        if (escaped) escaped = false;
        else if (c === BACKSLASH) escaped = true;
        else if (c === QUOTE) inString = false;
        continue;
      }
      const k = CLASS[c]!;
      if (k === OTHER) continue;
      if (k === OPEN_STRING) inString = true;
      else if (k === COLON) keys++;
      else if (k === COMMA) commas++;
      else if (k === OPEN) {
        if (++depth > max) {
          this.tooDeep = true;
          break;
        }
      } else if (depth > 0) depth--;
    }
    if (keys + commas > this.maxMembers) this.tooMany = true;
    this.depth = depth;
    this.inString = inString;
    this.escaped = escaped;
    this.keys = keys;
    this.commas = commas;
  }
}

/** The keys of every object in a parsed value (bounded in depth by the scan before the parse). */
export function countKeys(value: unknown): number {
  let n = 0;
  if (Array.isArray(value)) {
    for (const v of value) if (v !== null && typeof v === "object") n += countKeys(v);
    return n;
  }
  // Object.keys rather than for-in: an object with thousands of keys is in dictionary mode, where for-in was several times slower.
  const record = value as Record<string, unknown>;
  const keys = Object.keys(record);
  n += keys.length;
  for (const k of keys) {
    const v = record[k];
    if (v !== null && typeof v === "object") n += countKeys(v);
  }
  return n;
}

type TFrame = { object: boolean; expectKey: boolean; key: string; index: number; seen: Set<string> | null };

/**
 * The path (`outcomes.1.errorClass`) of the first key repeated in its object, in valid JSON
 * text, or null. Keys are compared by value: "a" and "\u0061" are the same key.
 */
export function findDuplicateKey(text: string): string | null {
  const frames: TFrame[] = [];
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (c === QUOTE) {
      let end = i + 1;
      while (text.charCodeAt(end) !== QUOTE) end += text.charCodeAt(end) === BACKSLASH ? 2 : 1;
      const top = frames[frames.length - 1];
      if (top?.object && top.expectKey) {
        top.expectKey = false;
        const raw = text.slice(i + 1, end);
        const key = raw.includes("\\") ? (JSON.parse(`"${raw}"`) as string) : raw;
        top.key = key;
        top.seen ??= new Set();
        if (top.seen.has(key)) return [...frames.slice(0, -1).map((f) => (f.object ? f.key : String(f.index))), key].join(".");
        top.seen.add(key);
      }
      i = end;
    } else if (c === 0x7b || c === 0x5b) frames.push({ object: c === 0x7b, expectKey: c === 0x7b, key: "", index: 0, seen: null });
    else if (c === 0x7d || c === 0x5d) frames.pop();
    else if (c === 0x2c && frames.length > 0) {
      const top = frames[frames.length - 1]!;
      if (top.object) top.expectKey = true;
      else top.index++;
    }
  }
  return null;
}

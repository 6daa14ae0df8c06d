/**
 * Query parameters in Postgres's binary format, above all one-dimensional arrays: Postgres reads
 * each element with its type's receive function (a copy for text, a load for numbers) instead of
 * parsing text or JSON.
 *
 * A parameter is its exact size and a writer, so a whole Bind message is sized first and then
 * written once, in place (prepared-call.ts); `toBuffer` makes one on its own, as a parameter for
 * node-pg's own queries (which send a Buffer parameter as binary).
 *
 * The array format (array_recv): dimensions (1), a has-nulls flag, the element type's OID, then per
 * dimension its length and lower bound (1); then per element its byte length (-1 for NULL) and
 * its bytes, big-endian.
 */

/** A parameter's bytes as Postgres's receive function reads them: `bytes` long, written by `write` at `at`. */
export type TBinaryParam = { readonly bytes: number; write(out: Buffer, at: number): void };

const OID = { bool: 16, int4: 23, text: 25, float8: 701, date: 1082, timestamptz: 1184, uuid: 2950 } as const;

const HEADER_BYTES = 20;

/** Postgres's epoch (2000-01-01 UTC) in Unix milliseconds: a timestamptz is microseconds since it, a date days. */
const PG_EPOCH_MS = Date.UTC(2000, 0, 1);
const DAY_MS = 86_400_000;
const TWO_POW_32 = 2 ** 32;

export function toBuffer(param: TBinaryParam): Buffer {
  const out = Buffer.allocUnsafe(param.bytes);
  param.write(out, 0);
  return out;
}

function header(out: Buffer, at: number, oid: number, count: number, hasNull: boolean): void {
  out.writeInt32BE(1, at);
  out.writeInt32BE(hasNull ? 1 : 0, at + 4);
  out.writeInt32BE(oid, at + 8);
  out.writeInt32BE(count, at + 12);
  out.writeInt32BE(1, at + 16);
}

/**
 * An array of fixed-width elements: `check` throws on a value the type cannot hold (before
 * anything is written), `put` writes a checked one's `width` bytes at `at`.
 */
function fixedWidth<T>(
  oid: number,
  width: number,
  values: readonly (T | null)[],
  check: (value: T) => void,
  put: (out: Buffer, value: T, at: number) => void,
): TBinaryParam {
  let nulls = 0;
  for (const v of values) {
    if (v === null) nulls++;
    else check(v);
  }
  return {
    bytes: HEADER_BYTES + 4 * values.length + width * (values.length - nulls),
    write(out, start) {
      header(out, start, oid, values.length, nulls > 0);
      let at = start + HEADER_BYTES;
      for (const v of values) {
        if (v === null) {
          out.writeInt32BE(-1, at);
          at += 4;
          continue;
        }
        out.writeInt32BE(width, at);
        put(out, v, at + 4);
        at += 4 + width;
      }
    },
  };
}

const noCheck = () => {};

/** The UTF-8 length of `s` when every character is ASCII (its length), else -1. */
function asciiLength(s: string): number {
  for (let i = 0; i < s.length; i++) if (s.charCodeAt(i) > 0x7f) return -1;
  return s.length;
}

/**
 * Strings this short are measured and copied character by character when they are ASCII (the
 * decision columns: names, ids, versions): cheaper than two calls into the runtime per element.
 */
const SHORT = 64;

/** text[]: each element's UTF-8 bytes. */
export function textParam(values: readonly (string | null)[]): TBinaryParam {
  let bytes = HEADER_BYTES;
  let hasNull = false;
  // Per element: its UTF-8 length, -1 for NULL; ascii[i] when it is copied character by character.
  const lengths = new Array<number>(values.length);
  const ascii = new Array<boolean>(values.length);
  for (let i = 0; i < values.length; i++) {
    const v = values[i]!;
    if (v === null) {
      hasNull = true;
      lengths[i] = -1;
      ascii[i] = false;
      bytes += 4;
      continue;
    }
    const short = v.length <= SHORT ? asciiLength(v) : -1;
    ascii[i] = short >= 0;
    lengths[i] = short >= 0 ? short : Buffer.byteLength(v);
    bytes += 4 + lengths[i]!;
  }
  return {
    bytes,
    write(out, start) {
      header(out, start, OID.text, values.length, hasNull);
      let at = start + HEADER_BYTES;
      for (let i = 0; i < values.length; i++) {
        const length = lengths[i]!;
        out.writeInt32BE(length, at);
        at += 4;
        if (length < 0) continue;
        const v = values[i]!;
        if (ascii[i]) {
          for (let k = 0; k < length; k++) out[at + k] = v.charCodeAt(k);
          at += length;
        } else at += out.write(v, at, "utf8");
      }
    },
  };
}

/** Each character code's hex digit value; -1 for anything else. */
const HEX = new Int8Array(128).fill(-1);
for (let c = 0; c < 10; c++) HEX[48 + c] = c;
for (let c = 0; c < 6; c++) HEX[65 + c] = HEX[97 + c] = 10 + c;

/** The character positions of a canonical UUID's 32 hex digits (around its hyphens at 8, 13, 18 and 23). */
const UUID_DIGITS = Array.from({ length: 36 }, (_, i) => i).filter((i) => i !== 8 && i !== 13 && i !== 18 && i !== 23);

function hexDigit(s: string, i: number): number {
  const c = s.charCodeAt(i);
  return c < 128 ? HEX[c]! : -1;
}

/** Decodes a canonical UUID's 32 hex digits into `out` at `at` (16 bytes), checking them as it goes; anything else throws, naming the value. */
function decodeUuid(v: string, out: Uint8Array, at: number): void {
  if (!(v.length === 36 && v[8] === "-" && v[13] === "-" && v[18] === "-" && v[23] === "-")) throw new Error(`not a UUID: ${JSON.stringify(v)}`);
  for (let k = 0; k < 16; k++) {
    const high = hexDigit(v, UUID_DIGITS[2 * k]!);
    const low = hexDigit(v, UUID_DIGITS[2 * k + 1]!);
    if ((high | low) < 0) throw new Error(`not a UUID: ${JSON.stringify(v)}`);
    out[at + k] = (high << 4) | low;
  }
}

/**
 * uuid[] from canonical (hyphenated) UUID texts, in either case; anything else throws, naming the
 * value. Each is decoded once, when the parameter is made (checked and decoded in one pass, rather
 * than checked then read again when written).
 */
export function uuidParam(values: readonly (string | null)[]): TBinaryParam {
  // From node's pool for a usual batch (a Uint8Array of its own is an off-heap allocation the GC tracks).
  const decoded = Buffer.allocUnsafe(16 * values.length);
  let nulls = 0;
  for (let i = 0; i < values.length; i++) {
    const v = values[i]!;
    if (v === null) nulls++;
    else decodeUuid(v, decoded, 16 * i);
  }
  return {
    bytes: HEADER_BYTES + 4 * values.length + 16 * (values.length - nulls),
    write(out, start) {
      header(out, start, OID.uuid, values.length, nulls > 0);
      let at = start + HEADER_BYTES;
      for (let i = 0; i < values.length; i++) {
        if (values[i] === null) {
          out.writeInt32BE(-1, at);
          at += 4;
          continue;
        }
        out.writeInt32BE(16, at);
        at += 4;
        for (let k = 0, from = 16 * i; k < 16; k++) out[at + k] = decoded[from + k]!;
        at += 16;
      }
    },
  };
}

function checkTime(ms: number): void {
  if (!Number.isFinite(ms)) throw new Error(`not a time: ${ms}`);
}

/** A timestamptz's 8 bytes: microseconds since 2000-01-01 UTC as a 64-bit integer. */
function putTimestamptz(out: Buffer, ms: number, at: number): void {
  const us = Math.round((ms - PG_EPOCH_MS) * 1000);
  const high = Math.floor(us / TWO_POW_32);
  out.writeInt32BE(high, at);
  out.writeUInt32BE(us - high * TWO_POW_32, at + 4);
}

/** timestamptz[] from epoch milliseconds. */
export function timestamptzParam(values: readonly (number | null)[]): TBinaryParam {
  return fixedWidth(OID.timestamptz, 8, values, checkTime, putTimestamptz);
}

/** One timestamptz from epoch milliseconds. */
export function timestamptzScalar(ms: number): TBinaryParam {
  checkTime(ms);
  return { bytes: 8, write: (out, at) => putTimestamptz(out, ms, at) };
}

/** One bigint (a safe integer). */
export function int8Scalar(value: number): TBinaryParam {
  if (!Number.isSafeInteger(value)) throw new Error(`not a safe integer: ${value}`);
  return { bytes: 8, write: (out, at) => out.writeBigInt64BE(BigInt(value), at) };
}

const DAY = /^\d{4}-\d{2}-\d{2}$/;

/** date[] from YYYY-MM-DD days: days since 2000-01-01. */
export function dateParam(values: readonly (string | null)[]): TBinaryParam {
  return fixedWidth(
    OID.date,
    4,
    values,
    (v) => {
      if (!DAY.test(v) || !Number.isFinite(Date.parse(`${v}T00:00:00Z`))) throw new Error(`not a day: ${JSON.stringify(v)}`);
    },
    (out, v, at) => {
      out.writeInt32BE(Math.round((Date.parse(`${v}T00:00:00Z`) - PG_EPOCH_MS) / DAY_MS), at);
    },
  );
}

export function boolParam(values: readonly (boolean | null)[]): TBinaryParam {
  return fixedWidth(OID.bool, 1, values, noCheck, (out, v, at) => {
    out[at] = v ? 1 : 0;
  });
}

/** float8[]; a non-finite number is stored as NULL (as the JSON batch did). */
export function float8Param(values: readonly (number | null)[]): TBinaryParam {
  return fixedWidth(
    OID.float8,
    8,
    values.map((v) => (v === null || !Number.isFinite(v) ? null : v)),
    noCheck,
    (out, v, at) => {
      out.writeDoubleBE(v, at);
    },
  );
}

/** int4[]; a value that is not a 32-bit integer throws, naming it. */
export function int4Param(values: readonly (number | null)[]): TBinaryParam {
  return fixedWidth(
    OID.int4,
    4,
    values,
    (v) => {
      if (!Number.isInteger(v) || v < -(2 ** 31) || v >= 2 ** 31) throw new Error(`not a 32-bit integer: ${v}`);
    },
    (out, v, at) => {
      out.writeInt32BE(v, at);
    },
  );
}

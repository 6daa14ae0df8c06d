/**
 * One-dimensional arrays in Postgres's binary array format, for query parameters: node-pg sends a
 * Buffer parameter as binary, and Postgres reads each element with its type's receive function
 * (a copy for text, a load for numbers) instead of parsing text or JSON.
 *
 * The format (array_recv): dimensions (1), a has-nulls flag, the element type's OID, then per
 * dimension its length and lower bound (1); then per element its byte length (-1 for NULL) and
 * its bytes, big-endian.
 */

const OID = { bool: 16, int4: 23, text: 25, float8: 701, timestamptz: 1184, uuid: 2950 } as const;

const HEADER_BYTES = 20;

/** Postgres's epoch (2000-01-01 UTC) in Unix milliseconds: a timestamptz is microseconds since it. */
const PG_EPOCH_MS = Date.UTC(2000, 0, 1);
const TWO_POW_32 = 2 ** 32;

function header(out: Buffer, oid: number, count: number, hasNull: boolean): void {
  out.writeInt32BE(1, 0);
  out.writeInt32BE(hasNull ? 1 : 0, 4);
  out.writeInt32BE(oid, 8);
  out.writeInt32BE(count, 12);
  out.writeInt32BE(1, 16);
}

/** An array of fixed-width elements: `write` puts element i's `width` bytes at `at`. */
function fixedWidth<T>(oid: number, width: number, values: readonly (T | null)[], write: (out: Buffer, value: T, at: number) => void): Buffer {
  let nulls = 0;
  for (const v of values) if (v === null) nulls++;
  const out = Buffer.allocUnsafe(HEADER_BYTES + 4 * values.length + width * (values.length - nulls));
  header(out, oid, values.length, nulls > 0);
  let at = HEADER_BYTES;
  for (const v of values) {
    if (v === null) {
      out.writeInt32BE(-1, at);
      at += 4;
      continue;
    }
    out.writeInt32BE(width, at);
    write(out, v, at + 4);
    at += 4 + width;
  }
  return out;
}

/** text[]: each element's UTF-8 bytes. */
export function textArray(values: readonly (string | null)[]): Buffer {
  let size = HEADER_BYTES;
  let hasNull = false;
  const lengths = new Array<number>(values.length);
  for (let i = 0; i < values.length; i++) {
    const v = values[i]!;
    if (v === null) {
      hasNull = true;
      lengths[i] = -1;
      size += 4;
      continue;
    }
    lengths[i] = Buffer.byteLength(v);
    size += 4 + lengths[i]!;
  }
  const out = Buffer.allocUnsafe(size);
  header(out, OID.text, values.length, hasNull);
  let at = HEADER_BYTES;
  for (let i = 0; i < values.length; i++) {
    out.writeInt32BE(lengths[i]!, at);
    at += 4;
    if (lengths[i]! >= 0) at += out.write(values[i]!, at, "utf8");
  }
  return out;
}

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/** uuid[] from canonical (hyphenated) UUID texts; anything else throws, naming the value. */
export function uuidArray(values: readonly (string | null)[]): Buffer {
  return fixedWidth(OID.uuid, 16, values, (out, v, at) => {
    if (!UUID.test(v)) throw new Error(`not a UUID: ${JSON.stringify(v)}`);
    out.write(v.slice(0, 8), at, "hex");
    out.write(v.slice(9, 13), at + 4, "hex");
    out.write(v.slice(14, 18), at + 6, "hex");
    out.write(v.slice(19, 23), at + 8, "hex");
    out.write(v.slice(24), at + 10, "hex");
  });
}

/** timestamptz[] from epoch milliseconds: microseconds since 2000-01-01 UTC as a 64-bit integer. */
export function timestamptzArray(values: readonly (number | null)[]): Buffer {
  return fixedWidth(OID.timestamptz, 8, values, (out, ms, at) => {
    if (!Number.isFinite(ms)) throw new Error(`not a time: ${ms}`);
    const us = Math.round((ms - PG_EPOCH_MS) * 1000);
    const high = Math.floor(us / TWO_POW_32);
    out.writeInt32BE(high, at);
    out.writeUInt32BE(us - high * TWO_POW_32, at + 4);
  });
}

export function boolArray(values: readonly (boolean | null)[]): Buffer {
  return fixedWidth(OID.bool, 1, values, (out, v, at) => {
    out[at] = v ? 1 : 0;
  });
}

/** float8[]; a non-finite number is stored as NULL (as the JSON batch did). */
export function float8Array(values: readonly (number | null)[]): Buffer {
  return fixedWidth(OID.float8, 8, values.map((v) => (v === null || !Number.isFinite(v) ? null : v)), (out, v, at) => {
    out.writeDoubleBE(v, at);
  });
}

/** int4[]; a value that is not a 32-bit integer throws, naming it. */
export function int4Array(values: readonly (number | null)[]): Buffer {
  return fixedWidth(OID.int4, 4, values, (out, v, at) => {
    if (!Number.isInteger(v) || v < -(2 ** 31) || v >= 2 ** 31) throw new Error(`not a 32-bit integer: ${v}`);
    out.writeInt32BE(v, at);
  });
}

import { randomBytes, randomUUID } from "node:crypto";

const HEX = Array.from({ length: 256 }, (_, i) => i.toString(16).padStart(2, "0"));
const hex8 = (n: number) => HEX[n >>> 24]! + HEX[(n >>> 16) & 255]! + HEX[(n >>> 8) & 255]! + HEX[n & 255]!;

/**
 * UUIDv7 ids (RFC 9562) from a random 8-byte base: 30 bits of it below the variant, and a 32-bit
 * counter started at the other 4 bytes in the random bits (the "fixed-length dedicated counter"
 * method). Unique within the process without drawing random bytes per id, and across processes by
 * the 62 random bits of the base. A decision's id is made on local evaluation's hot path, so
 * everything but the counter's last byte is kept as a prefix string and rebuilt only when the
 * millisecond or a higher counter byte changes: one concatenation per id.
 */
export function createUuidV7(base: Uint8Array): (ms: number) => string {
  const view = new DataView(base.buffer, base.byteOffset, 8);
  const hi = hex8((0x80000000 | (view.getUint32(0) & 0x3fffffff)) >>> 0); // variant 10 in the top bits
  let counter = view.getUint32(4);
  let lastMs = -1;
  let lastHigh = -1;
  let prefix = "";
  return (ms) => {
    const t = Math.floor(ms);
    counter = (counter + 1) >>> 0;
    const high = counter >>> 8;
    if (t !== lastMs || high !== lastHigh) {
      lastMs = t;
      lastHigh = high;
      const ts = t.toString(16).padStart(12, "0").slice(-12);
      const c = hex8(counter);
      // 7xxx: 12 bits from the counter's top; then variant + 30 base bits, then the 32-bit counter.
      prefix = `${ts.slice(0, 8)}-${ts.slice(8, 12)}-7${c.slice(0, 3)}-${hi.slice(0, 4)}-${hi.slice(4, 8)}${c.slice(0, 6)}`;
    }
    return prefix + HEX[counter & 255]!;
  };
}

/** A UUIDv7 (RFC 9562) of `ms`: Switchyard stores a decision at its id's time. */
export const uuidV7At = createUuidV7(randomBytes(8));

export { randomUUID };

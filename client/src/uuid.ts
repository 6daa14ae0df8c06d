import { randomBytes, randomUUID } from "node:crypto";

// UUIDv7 with a process-random base and a counter in the random bits (RFC 9562's "fixed-length
// dedicated counter" method): unique within the process without drawing random bytes per id, and
// across processes by the 62 random bits of the base. A decision's id is made on the hot path of
// local evaluation, where randomUUID per id cost more than router-core's decide() itself.
const base = randomBytes(8);
const hiBase = base.readUInt32BE(0) & 0x3fffffff; // 30 bits below the variant
let counter = base.readUInt32BE(4);
let lastMs = -1;
let tsHex = "";

/** A UUIDv7 (RFC 9562) of `ms`: Switchyard stores a decision at its id's time. */
export function uuidV7At(ms: number): string {
  const t = Math.floor(ms);
  if (t !== lastMs) {
    lastMs = t;
    const h = t.toString(16).padStart(12, "0").slice(-12);
    tsHex = `${h.slice(0, 8)}-${h.slice(8, 12)}-7`;
  }
  counter = (counter + 1) >>> 0;
  const hi = (0x80000000 | hiBase) >>> 0; // variant 10 in the top bits
  const c = counter.toString(16).padStart(8, "0");
  const h = hi.toString(16);
  // 7xxx: 12 bits from the counter's top; then variant + 30 base bits, then the 32-bit counter.
  return `${tsHex}${c.slice(0, 3)}-${h.slice(0, 4)}-${h.slice(4, 8)}${c}`;
}

export { randomUUID };

import { describe, expect, it } from "vitest";
import { createUuidV7, uuidV7At } from "../src/uuid";

// The layout written out plainly: what the cached-prefix generator must produce for every id.
function reference(ms: number, base: Buffer, counter: number): string {
  const h = ms.toString(16).padStart(12, "0").slice(-12);
  const hi = ((0x80000000 | (base.readUInt32BE(0) & 0x3fffffff)) >>> 0).toString(16);
  const c = counter.toString(16).padStart(8, "0");
  return `${h.slice(0, 8)}-${h.slice(8, 12)}-7${c.slice(0, 3)}-${hi.slice(0, 4)}-${hi.slice(4, 8)}${c}`;
}

const V7 = /^[0-9a-f]{8}-[0-9a-f]{4}-7[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/;

describe("uuidV7At", () => {
  it("matches the plain layout across counter byte, 20-bit and 32-bit wrap boundaries", () => {
    for (const start of [0x000000fe, 0x000ffff0, 0xfffffff0, 0x12345678]) {
      const base = Buffer.alloc(8);
      base.writeUInt32BE(0xdeadbeef, 0);
      base.writeUInt32BE(start, 4);
      const next = createUuidV7(base);
      let counter = start;
      for (let i = 0; i < 600; i++) {
        const ms = 1_796_000_000_000 + Math.floor(i / 7);
        counter = (counter + 1) >>> 0;
        expect(next(ms)).toBe(reference(ms, base, counter));
      }
    }
  });

  it("makes well-formed, distinct ids that carry their millisecond and sort by it", () => {
    const ids = new Set<string>();
    let previous = "";
    for (let i = 0; i < 300_000; i++) {
      const ms = 1_796_000_000_000 + Math.floor(i / 1000);
      const id = uuidV7At(ms);
      if (i % 997 === 0) {
        expect(id).toMatch(V7);
        expect(parseInt(id.slice(0, 8) + id.slice(9, 13), 16)).toBe(ms);
      }
      if (i % 1000 === 0) {
        expect(id > previous).toBe(true);
        previous = id;
      }
      ids.add(id);
    }
    expect(ids.size).toBe(300_000);
  });
});

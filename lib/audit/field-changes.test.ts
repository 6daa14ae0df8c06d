import { describe, expect, it } from "vitest";
import { fieldChanges } from "./field-changes";

describe("fieldChanges", () => {
  it("lists only the fields that moved, nested by path, lists as whole values", () => {
    const before = { key: "provider_B", costPerRequest: 0.004, certifications: ["gdpr"], quotas: { perMinute: 100, perDay: 10_000 }, version: 3 };
    const after = { key: "provider_B", costPerRequest: 0.005, certifications: ["gdpr", "soc2"], quotas: { perMinute: 120, perDay: 10_000 }, version: 4 };
    expect(fieldChanges(before, after)).toEqual({
      changes: [
        { path: "certifications", before: ["gdpr"], after: ["gdpr", "soc2"] },
        { path: "costPerRequest", before: 0.004, after: 0.005 },
        { path: "quotas.perMinute", before: 100, after: 120 },
        { path: "version", before: 3, after: 4 },
      ],
      more: 0,
    });
  });

  it("a created target lists its fields against nothing, a removed field has no after", () => {
    expect(fieldChanges(null, { key: "x", enabled: true }).changes).toEqual([
      { path: "enabled", before: undefined, after: true },
      { path: "key", before: undefined, after: "x" },
    ]);
    expect(fieldChanges({ a: 1, b: 2 }, { a: 1 }).changes).toEqual([{ path: "b", before: 2, after: undefined }]);
    expect(fieldChanges({ a: 1 }, { a: 1 })).toEqual({ changes: [], more: 0 });
  });

  it("bounds what it lists", () => {
    const after = Object.fromEntries(Array.from({ length: 100 }, (_, i) => [`f${String(i).padStart(3, "0")}`, i]));
    const r = fieldChanges({}, after);
    expect(r.changes).toHaveLength(60);
    expect(r.more).toBe(40);
  });
});

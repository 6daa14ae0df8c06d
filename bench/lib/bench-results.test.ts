import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { quantile, readBenchResults, writeBenchResult } from "./bench-results";

const dirs: string[] = [];
function tempDir(): string {
  const dir = mkdtempSync(path.join(os.tmpdir(), "bench-results-"));
  dirs.push(dir);
  return dir;
}
afterEach(() => {
  for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
});

const input = {
  name: "api",
  title: "Decide over HTTP",
  command: "npm run bench:api",
  parameters: { seconds: 10 },
  figures: [{ label: "decide", value: 5000, unit: "req/s" }],
};

describe("bench results", () => {
  it("writes a file that reads back with date, commit and machine filled in", () => {
    const dir = tempDir();
    const file = writeBenchResult(input, { dir, now: new Date("2026-11-30T00:00:00Z"), commit: "abc" });
    expect(file).toBe(path.join(dir, "api.json"));
    const { results, invalid } = readBenchResults(dir);
    expect(invalid).toEqual([]);
    expect(results).toHaveLength(1);
    expect(results[0]).toMatchObject({ version: 1, name: "api", date: "2026-11-30T00:00:00.000Z", commit: "abc" });
    expect(results[0]!.machine.cores).toBeGreaterThan(0);
    expect(JSON.parse(readFileSync(file, "utf8")).figures[0].value).toBe(5000);
  });

  it("refuses a name that is not a plain file name and a figure that is not finite", () => {
    const dir = tempDir();
    expect(() => writeBenchResult({ ...input, name: "../x" }, { dir })).toThrow(/name/);
    expect(() => writeBenchResult({ ...input, figures: [{ label: "x", value: Number.POSITIVE_INFINITY, unit: "ms" }] }, { dir })).toThrow();
  });

  it("reports files that do not match the shape instead of dropping them", () => {
    const dir = tempDir();
    writeFileSync(path.join(dir, "broken.json"), JSON.stringify({ version: 1, name: "broken" }));
    writeFileSync(path.join(dir, "garbage.json"), "{");
    const { results, invalid } = readBenchResults(dir);
    expect(results).toEqual([]);
    expect(invalid.map((i) => i.file)).toEqual(["broken.json", "garbage.json"]);
    expect(invalid[0]!.error).toMatch(/title/);
  });

  it("takes nearest-rank quantiles", () => {
    const sorted = Array.from({ length: 100 }, (_, i) => i + 1);
    expect(quantile(sorted, 0.5)).toBe(50);
    expect(quantile(sorted, 0.95)).toBe(95);
    expect(quantile(sorted, 0.99)).toBe(99);
    expect(quantile([7], 0.99)).toBe(7);
  });
});

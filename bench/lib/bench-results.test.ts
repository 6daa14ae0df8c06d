import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { cpuKind, otherCpusDir, quantile, readBenchResults, writeBenchResult, type TBenchMachine } from "./bench-results";

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

  it("names the CPU kinds the machine has come as, and others by their model", () => {
    expect(cpuKind("AMD EPYC 7B13")).toBe("amd-epyc");
    expect(cpuKind("AMD EPYC Processor (with IBPB)")).toBe("amd-epyc");
    expect(cpuKind("Intel(R) Xeon(R) Processor")).toBe("intel-xeon");
    expect(cpuKind("Intel(R) Xeon(R) CPU @ 2.20GHz")).toBe("intel-xeon");
    expect(cpuKind("Apple M2 (Virtual)")).toBe("apple-m2");
    expect(cpuKind("")).toBe("unknown");
  });

  it("keeps the replaced run of another CPU kind in other-cpus/, and drops this kind's once superseded", () => {
    const dir = tempDir();
    const on = (cpuModel: string): TBenchMachine => ({ cores: 2, cpuModel, memoryGiB: 23.5, node: "v20.20.2", platform: "linux x64" });
    const run = (value: number, cpuModel: string) =>
      writeBenchResult({ ...input, figures: [{ label: "decide", value, unit: "req/s" }] }, { dir, commit: "c", machine: on(cpuModel) });
    const others = () => readBenchResults(otherCpusDir(dir)).results.map((r) => [r.machine.cpuModel, r.figures[0]!.value]);
    run(1, "AMD EPYC 7B13");
    run(2, "AMD EPYC 7B13");
    expect(others()).toEqual([]);
    run(3, "Intel(R) Xeon(R) Processor");
    expect(readBenchResults(dir).results.map((r) => r.figures[0]!.value)).toEqual([3]);
    expect(others()).toEqual([["AMD EPYC 7B13", 2]]);
    run(4, "AMD EPYC 7B13");
    expect(readBenchResults(dir).results.map((r) => r.figures[0]!.value)).toEqual([4]);
    expect(others()).toEqual([["Intel(R) Xeon(R) Processor", 3]]);
  });

  it("takes nearest-rank quantiles", () => {
    const sorted = Array.from({ length: 100 }, (_, i) => i + 1);
    expect(quantile(sorted, 0.5)).toBe(50);
    expect(quantile(sorted, 0.95)).toBe(95);
    expect(quantile(sorted, 0.99)).toBe(99);
    expect(quantile([7], 0.99)).toBe(7);
  });
});

import { describe, expect, it } from "vitest";
import type { TBenchResult } from "./lib/bench-results";
import { BENCHMARKS, renderBenchmarks } from "./benchmarks-report";

const result = (name: string, value: number): TBenchResult => ({
  version: 1,
  name,
  title: `${name} title`,
  command: `npm run ${name}`,
  date: "2026-11-30T01:00:00.000Z",
  commit: "0123456789abcdef0123+dirty",
  machine: { cores: 2, cpuModel: "test cpu", memoryGiB: 8, node: "v20.0.0", platform: "linux x64" },
  parameters: { runs: 3 },
  figures: [{ label: "decisions/s", value, unit: "req/s", target: "> 1000" }],
  tables: [{ title: "cases", columns: ["case", "p95"], rows: [["a|b", 12.34]] }],
  invariants: [{ label: "missing rows", ok: false, detail: "2 of 10" }],
});

describe("renderBenchmarks", () => {
  it("lists every benchmark with its command and says so when it has no result yet", () => {
    const md = renderBenchmarks(BENCHMARKS, []);
    for (const b of BENCHMARKS) {
      expect(md).toContain(`## ${b.title}`);
      for (const c of b.commands) expect(md).toContain(c);
    }
    expect(md.match(/No results yet/g)).toHaveLength(BENCHMARKS.length);
  });

  it("shows a result's figures, tables, invariants, date, commit and machine from the file only", () => {
    const md = renderBenchmarks(BENCHMARKS, [result("api", 4321.5)]);
    const section = md.slice(md.indexOf("## Decide over HTTP"), md.indexOf("## Gateway"));
    expect(section).toContain("| decisions/s | 4,322 req/s | > 1000 |");
    expect(section).toContain("2026-11-30 01:00 UTC");
    expect(section).toContain("`0123456789ab+dirty`");
    expect(section).toContain("2 cores (test cpu), 8 GiB RAM");
    expect(section).toContain("| a\\|b | 12.3 |");
    expect(section).toContain("| missing rows | **NO** | 2 of 10 |");
    expect(section).not.toContain("No results yet");
  });

  it("keeps results no benchmark lists under Other results", () => {
    const md = renderBenchmarks(BENCHMARKS, [result("something-new", 1)]);
    expect(md).toContain("## Other results");
    expect(md.slice(md.indexOf("## Other results"))).toContain("something-new title");
  });
});

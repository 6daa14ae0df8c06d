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

  it("shows the last run on another kind of CPU beside this one, figure by figure", () => {
    const intel: TBenchResult = {
      ...result("api", 12035),
      machine: { ...result("api", 0).machine, cpuModel: "Intel(R) Xeon(R) Processor" },
      figures: [...result("api", 12035).figures, { label: "ratio", value: 5.6, unit: "×", target: "≥ 3777" }],
    };
    const amd: TBenchResult = {
      ...result("api", 10171),
      date: "2026-12-06T16:50:00.000Z",
      machine: { ...result("api", 0).machine, cpuModel: "AMD EPYC 7B13", loadAverage: 1.57 },
      figures: [...result("api", 10171).figures, { label: "only on amd", value: 3, unit: "ms" }, { label: "ratio", value: 4.4, unit: "×", target: "≥ 4520" }],
    };
    const md = renderBenchmarks(BENCHMARKS, [intel], [amd, { ...amd, name: "gateway" }]);
    const section = md.slice(md.indexOf("## Decide over HTTP"), md.indexOf("## Gateway"));
    expect(section).toContain("The last run of `api` on AMD EPYC 7B13 (`amd-epyc`): 2026-12-06 16:50 UTC");
    expect(section).toContain("| figure | intel-xeon (above) | amd-epyc | target |");
    expect(section).toContain("| decisions/s | 12,035 req/s | 10,171 req/s | > 1000 |");
    expect(section).toContain("| only on amd | – | 3 ms |  |");
    expect(section).toContain("| ratio | 5.6 × | 4.4 × | ≥ 3777; amd-epyc: ≥ 4520 |");
    expect(section).toContain("Invariant not held on that run: missing rows (2 of 10).");
    // A result's other-CPU run shows only under its own name, and never beside a run of the same kind.
    expect(md.slice(md.indexOf("## Gateway")).includes("The last run of")).toBe(false);
    expect(renderBenchmarks(BENCHMARKS, [{ ...amd, figures: amd.figures }], [amd])).not.toContain("The last run of");
  });

  it("keeps results no benchmark lists under Other results", () => {
    const md = renderBenchmarks(BENCHMARKS, [result("something-new", 1)]);
    expect(md).toContain("## Other results");
    expect(md.slice(md.indexOf("## Other results"))).toContain("something-new title");
  });
});

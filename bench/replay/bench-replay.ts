/**
 * `npm run bench:replay`: `npm run replay` (the same options, tables and output files), recorded
 * as bench-results/replay.json for BENCHMARKS.md. The replay itself stays a product command that
 * imports nothing from bench/.
 */
import { FAILBACK_MINUTES, FAILBACK_RATES, FAILBACK_SHARE, REPLAY_REGIONS, REPLAY_TRAFFIC } from "../../router-core/replay";
import { printTables, readOptions, runReplay, writeOutputFiles, type TReplayOptions, type TReplayOutcome } from "../../scripts/replay";
import { writeBenchResult } from "../lib/bench-results";

/** Table 14 and 15 as bench-results/replay.json, for BENCHMARKS.md. */
function writeReplayResult(o: TReplayOptions, r: TReplayOutcome, notes: string[]): void {
  const { values, seed } = o;
  const pct = (x: number) => Math.round(x * 10_000) / 100;
  const r1 = (x: number | null) => (x === null ? null : Math.round(x * 10) / 10);
  const flag = (name: string, v: string | undefined) => (v === undefined ? "" : ` --${name} ${v}`);
  writeBenchResult({
    name: "replay",
    title: "Replay evaluation (Tables 14 and 15)",
    command: `npm run bench:replay --${flag("scenarios", values.scenarios)}${flag("policies", values.policies)} --seed ${seed}${flag("factor-list", values["factor-list"])}${values["no-sensitivity"] ? " --no-sensitivity" : ""}${values["no-failback"] ? " --no-failback" : ""}${flag("sensitivity-scenarios", values["sensitivity-scenarios"])}`,
    parameters: {
      seed,
      scenarios: o.scenarios,
      policies: o.policies,
      requestsPerScenario: REPLAY_TRAFFIC.minutes * REPLAY_TRAFFIC.requestsPerMinute,
      sensitivityScenarios: o.sensitivityScenarios,
      failbackRates: o.failback ? FAILBACK_RATES.map((f) => f.label) : [],
      threads: r.threads,
      factorList: values["factor-list"] ?? "listing1",
    },
    figures: [
      { label: "runs", value: r.done, unit: "runs" },
      { label: "wall time", value: Math.round(r.elapsedMs) / 1000, unit: "s" },
    ],
    tables: [
      {
        title: "Table 14: success rate (%) and degraded minutes per scenario and policy",
        columns: ["scenario", "policy", "success %", "degraded min", "p95 ms", "switches", "oscillations", "shift-away min"],
        rows: r.cells.map((c) => [
          c.scenarioLabel,
          c.policy,
          pct(c.metrics.successRate),
          c.metrics.degradedMinutes,
          r1(c.metrics.p95Ms),
          c.metrics.switches,
          c.metrics.oscillations,
          r1(c.metrics.shiftAwayMinutes),
        ]),
      },
      ...(r.sensitivity
        ? [
            {
              title: `Table 15: factor list on ${o.sensitivityScenarios.join(", ")}, indices relative to the baseline variant = 100`,
              columns: ["variant", "parameter", "completion idx", "failed idx", "p95 idx", "switches", "oscillations", "shift-away min"],
              rows: r.sensitivity.map((x) => [
                x.id,
                x.parameter,
                r1(x.completionIdx),
                r1(x.failedIdx),
                r1(x.p95Idx),
                x.switches,
                x.oscillations,
                r1(x.shiftAwayMinutes),
              ]),
            },
          ]
        : []),
      ...(r.failback.length > 0
        ? [
            {
              title: `Time to failback at lower volumes: minutes from the end of the degradation until A's planned share is back at ${FAILBACK_SHARE * 100}% ("never": not within the ${FAILBACK_MINUTES}-minute run; "—": A never left the region)`,
              columns: ["scenario", "total rate", ...REPLAY_REGIONS.flatMap((g) => [`${g} rate/s`, `${g} min`]), "success %"],
              rows: r.failback.map((f) => [
                f.label,
                f.rate,
                ...f.regions.flatMap((g) => [g.perSecond, g.displaced ? (g.failbackMinutes ?? "never") : "—"]),
                pct(f.successRate),
              ]),
            },
          ]
        : []),
    ],
    notes,
  });
}

async function main(): Promise<void> {
  const o = readOptions();
  const r = await runReplay(o);
  writeOutputFiles(o, r);
  const notes = printTables(o, r);
  writeReplayResult(o, r, notes);
}

main().catch((e: unknown) => {
  process.stderr.write(`${e instanceof Error ? e.message : String(e)}\n`);
  process.exit(1);
});

/**
 * `npm run replay`: the paper's section 8 evaluation (Tables 14 and 15) on router-core.
 *
 *   npm run replay -- [--scenarios outage,latency,...] [--policies static,failover,breaker,factor_list]
 *                     [--seed 42] [--factor-list draft.yaml] [--no-sensitivity]
 *                     [--sensitivity-scenarios latency,regional] [--out replay-output]
 *
 * Progress goes to stderr, tables to stdout; CSV, JSON and per-minute traces go under --out.
 */
import { mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { parseArgs } from "node:util";
import { parseFactorList } from "../router-core/policy/codec";
import type { TFactorList } from "../router-core/policy/schema";
import {
  POLICY_IDS,
  SCENARIOS,
  SCENARIO_IDS,
  SENSITIVITY_VARIANTS,
  formatDetails,
  formatTable14,
  formatTable15,
  latencyTradeoffNote,
  listing1,
  resultCsv,
  runScenario,
  scenarioTraffic,
  sensitivityCsv,
  sensitivityRows,
  traceCsv,
  type TResultCell,
  type TRunResult,
  type TScenarioId,
} from "../router-core/replay";

const DEFAULT_SENSITIVITY_SCENARIOS: readonly TScenarioId[] = ["latency"];

function pickList<T extends string>(name: string, value: string | undefined, known: readonly T[], fallback: readonly T[]): T[] {
  if (value === undefined) return [...fallback];
  const items = value.split(",").map((s) => s.trim()).filter((s) => s !== "");
  for (const item of items) {
    if (!known.includes(item as T)) throw new Error(`--${name}: unknown "${item}"; known: ${known.join(", ")}`);
  }
  return items as T[];
}

function loadFactorList(path: string | undefined): TFactorList {
  if (path === undefined) return listing1();
  const parsed = parseFactorList(readFileSync(path, "utf8"));
  if (!parsed.ok) throw new Error(`--factor-list ${path}:\n${parsed.errors.map((e) => `  ${e.path}: ${e.message}`).join("\n")}`);
  for (const w of parsed.warnings) process.stderr.write(`warning: ${path}: ${w}\n`);
  return parsed.value;
}

function progress(done: number, total: number, label: string): void {
  if (!process.stderr.isTTY && done < total) return;
  const width = 30;
  const filled = Math.round((done / total) * width);
  const line = `[${"#".repeat(filled)}${".".repeat(width - filled)}] ${done}/${total} ${label}`;
  process.stderr.write(process.stderr.isTTY ? `\r${line.padEnd(80)}` : `${line}\n`);
  if (done === total && process.stderr.isTTY) process.stderr.write("\n");
}

function main(): void {
  const { values } = parseArgs({
    options: {
      scenarios: { type: "string" },
      policies: { type: "string" },
      seed: { type: "string", default: "42" },
      "factor-list": { type: "string" },
      "no-sensitivity": { type: "boolean", default: false },
      "sensitivity-scenarios": { type: "string" },
      out: { type: "string", default: "replay-output" },
    },
    strict: true,
  });
  const scenarios = pickList("scenarios", values.scenarios, SCENARIO_IDS, SCENARIO_IDS);
  const policies = pickList("policies", values.policies, POLICY_IDS, POLICY_IDS);
  const seed = Number(values.seed);
  if (!Number.isInteger(seed)) throw new Error(`--seed must be an integer, got ${values.seed}`);
  const factorList = loadFactorList(values["factor-list"]);
  const sensitivityScenarios = values["no-sensitivity"]
    ? []
    : pickList("sensitivity-scenarios", values["sensitivity-scenarios"], SCENARIO_IDS, DEFAULT_SENSITIVITY_SCENARIOS);
  const out = values.out;

  const started = performance.now();
  const traffic = scenarioTraffic(seed);
  // The sensitivity baseline is the factor-list run itself; it is reused when already in the main grid.
  const extraVariants = SENSITIVITY_VARIANTS.slice(1);
  const total =
    scenarios.length * policies.length +
    sensitivityScenarios.filter((s) => !(scenarios.includes(s) && policies.includes("factor_list"))).length +
    sensitivityScenarios.length * extraVariants.length;
  let done = 0;
  const step = (label: string) => progress(++done, total, label);

  const cells: TResultCell[] = [];
  const runs = new Map<string, TRunResult>();
  for (const scenario of scenarios) {
    for (const policy of policies) {
      const result = runScenario({ scenario, policy, seed, traffic, factorList });
      runs.set(`${scenario}/${policy}`, result);
      cells.push({ scenario, scenarioLabel: SCENARIOS[scenario].label, policy, metrics: result.metrics });
      step(`${scenario} × ${policy}`);
    }
  }

  const sensitivityRuns: TRunResult[][] = SENSITIVITY_VARIANTS.map(() => []);
  for (const scenario of sensitivityScenarios) {
    SENSITIVITY_VARIANTS.forEach((v, i) => {
      let result = i === 0 ? runs.get(`${scenario}/factor_list`) : undefined;
      if (result === undefined) {
        result = runScenario({ scenario, policy: "factor_list", seed, traffic, factorList: v.factorList(factorList), wiring: v.wiring });
        step(`sensitivity ${v.id} × ${scenario}`);
      }
      sensitivityRuns[i]!.push(result);
    });
  }
  const sensitivity = sensitivityScenarios.length > 0 ? sensitivityRows(SENSITIVITY_VARIANTS, sensitivityRuns) : null;
  const elapsedMs = performance.now() - started;

  mkdirSync(join(out, "trace"), { recursive: true });
  writeFileSync(join(out, "results.csv"), resultCsv(cells));
  for (const [key, result] of runs) writeFileSync(join(out, "trace", `${key.replace("/", "_")}.csv`), traceCsv(result.trace));
  if (sensitivity) writeFileSync(join(out, "sensitivity.csv"), sensitivityCsv(sensitivity));
  writeFileSync(
    join(out, "results.json"),
    JSON.stringify(
      {
        seed,
        factorList,
        elapsedMs: Math.round(elapsedMs),
        results: cells.map((c) => ({ ...c, trace: runs.get(`${c.scenario}/${c.policy}`)?.trace ?? [] })),
        sensitivity: sensitivity && { scenarios: sensitivityScenarios, rows: sensitivity },
      },
      null,
      2,
    ),
  );

  const print = (s: string) => process.stdout.write(`${s}\n`);
  print(`Table 14 (synthetic replay, seed ${seed}, ${traffic.at.length} requests per scenario and policy): success rate / degraded minutes`);
  print(formatTable14(cells, policies));
  print("");
  print(formatDetails(cells));
  if (sensitivity) {
    print("");
    print(`Table 15 (factor list on ${sensitivityScenarios.join(", ")}; indices relative to scen_01_baseline = 100)`);
    print(formatTable15(sensitivity));
  }
  const note = latencyTradeoffNote(cells, sensitivity);
  if (note) {
    print("");
    print(note);
  }
  print("");
  print(`${done} runs in ${(elapsedMs / 1000).toFixed(2)} s; files in ${out}/`);
}

try {
  main();
} catch (e) {
  process.stderr.write(`${e instanceof Error ? e.message : String(e)}\n`);
  process.exit(1);
}

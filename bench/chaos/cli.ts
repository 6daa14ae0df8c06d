import os from "node:os";
import { parseArgs } from "node:util";
import { writeBenchResult } from "../lib/bench-results";
import { renderReport, type TFaultReport } from "./report";

type TFlag = { default: number; help: string };

/**
 * Runs a fault scenario from the command line: numeric flags (--name value) with defaults,
 * prints the report, writes bench-results/<name>.json and exits 1 only when an invariant broke.
 */
export async function runFaultCli(spec: {
  name: string;
  title: string;
  command: string;
  flags: Record<string, TFlag>;
  run: (values: Record<string, number>, log: (line: string) => void) => Promise<TFaultReport>;
}): Promise<void> {
  const { values } = parseArgs({
    options: { help: { type: "boolean" }, ...Object.fromEntries(Object.keys(spec.flags).map((k) => [k, { type: "string" as const }])) },
  });
  if (values.help) {
    process.stdout.write(`${spec.command} [options]\n\n${spec.title}\n\n`);
    for (const [k, f] of Object.entries(spec.flags)) process.stdout.write(`  --${k.padEnd(22)} ${f.help} (default ${f.default})\n`);
    return;
  }
  const numbers: Record<string, number> = {};
  for (const [k, f] of Object.entries(spec.flags)) {
    const raw = (values as Record<string, string | boolean | undefined>)[k];
    const n = raw === undefined ? f.default : Number(raw);
    if (typeof raw !== "string" ? raw !== undefined : raw.trim() === "" || !Number.isFinite(n) || n < 0) {
      process.stderr.write(`${spec.command}: --${k} must be a non-negative number, got ${JSON.stringify(raw)}\n`);
      process.exit(2);
    }
    numbers[k] = n;
  }
  const t0 = Date.now();
  const log = (line: string) => process.stderr.write(`[${((Date.now() - t0) / 1000).toFixed(1).padStart(6)} s] ${line}\n`);
  const loadBefore = os.loadavg()[0]!;
  try {
    const report = await spec.run(numbers, log);
    // Other work on the machine shows in every latency here: say how busy it was.
    report.notes = [
      ...(report.notes ?? []),
      `machine load average (1 min): ${loadBefore.toFixed(1)} at the start, ${os.loadavg()[0]!.toFixed(1)} at the end, on ${os.cpus().length} cores`,
    ];
    const flags = Object.entries(values)
      .filter(([k, v]) => k !== "help" && v !== undefined)
      .map(([k, v]) => ` --${k} ${String(v)}`)
      .join("");
    const file = writeBenchResult({ name: spec.name, title: spec.title, command: `${spec.command}${flags ? ` --${flags}` : ""}`, ...report });
    process.stdout.write(`${renderReport(spec.title, report)}\n\nwritten: ${file}\n`);
    const broken = (report.invariants ?? []).filter((i) => !i.ok);
    if (broken.length > 0) {
      process.stderr.write(`${spec.command}: ${broken.length} invariant(s) broken: ${broken.map((b) => b.label).join("; ")}\n`);
      process.exit(1);
    }
    process.exit(0);
  } catch (err) {
    process.stderr.write(`${spec.command}: ${err instanceof Error ? (err.stack ?? err.message) : String(err)}\n`);
    process.exit(1);
  }
}

import { execFileSync } from "node:child_process";
import { mkdirSync, readdirSync, readFileSync, renameSync, rmSync, writeFileSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { z } from "zod";

/**
 * One benchmark run's figures, as `bench-results/<name>.json`. BENCHMARKS.md is generated from
 * these files only (`npm run benchmarks:report`), so every number in it comes from a run.
 *
 * Shape (version 1):
 * ```json
 * {
 *   "version": 1,
 *   "name": "api",                       // file name without .json: [a-z0-9][a-z0-9-]*
 *   "title": "Decide over HTTP",         // one line, for the report's heading
 *   "command": "npm run bench:api",      // how to rerun it, with the options this run used
 *   "date": "2026-11-30T00:30:00.000Z",  // when the run finished (ISO 8601, UTC)
 *   "commit": "4dff560…",                // git HEAD, "+dirty" appended when the tree had changes
 *   "machine": { "cores": 2, "cpuModel": "…", "memoryGiB": 23.4, "node": "v20.19.0", "platform": "linux x64", "loadAverage": 1.2 },
 *   "parameters": { "seconds": 10, "connections": 50 },   // the run's inputs, flat JSON values
 *   "figures": [                          // the results, in display order
 *     { "label": "decide, sync durability", "value": 5123.4, "unit": "req/s" },
 *     { "label": "decide p99", "value": 31.2, "unit": "ms", "target": "< 200" }
 *   ],
 *   "tables": [                           // optional: labelled rows for multi-column results
 *     { "title": "console read models", "columns": ["query", "p50 ms", "p95 ms"], "rows": [["overview", 12.1, 30.4]] }
 *   ],
 *   "invariants": [                       // optional: checks that must hold whatever the speed
 *     { "label": "acknowledged decisions missing", "ok": true, "detail": "0 of 51234" }
 *   ],
 *   "notes": ["…"]                        // optional: free text shown under the figures
 * }
 * ```
 * `writeBenchResult` fills version, date, commit and machine; the caller gives the rest.
 */

const ZJson: z.ZodType<unknown> = z.lazy(() => z.union([z.string(), z.number(), z.boolean(), z.null(), z.array(ZJson), z.record(z.string(), ZJson)]));

export const ZBenchFigure = z.object({
  label: z.string().min(1),
  value: z.number().finite().nullable(),
  unit: z.string(),
  /** The goal this figure is read against, e.g. "< 200" (ms); the report shows it, nothing asserts it. */
  target: z.string().optional(),
});

export const ZBenchTable = z.object({
  title: z.string().min(1),
  columns: z.array(z.string()).min(1),
  rows: z.array(z.array(z.union([z.string(), z.number(), z.boolean(), z.null()]))),
});

export const ZBenchInvariant = z.object({
  label: z.string().min(1),
  ok: z.boolean(),
  detail: z.string().optional(),
});

export const ZBenchMachine = z.object({
  cores: z.number().int().positive(),
  cpuModel: z.string(),
  memoryGiB: z.number().positive(),
  node: z.string(),
  platform: z.string(),
  /** 1-minute load average when the run finished: on a shared machine, how busy it was. */
  loadAverage: z.number().nonnegative().optional(),
});

const NAME = /^[a-z0-9][a-z0-9-]*$/;

export const ZBenchResult = z.object({
  version: z.literal(1),
  name: z.string().regex(NAME, "name must be lower-case letters, digits and dashes"),
  title: z.string().min(1),
  command: z.string().min(1),
  date: z.iso.datetime(),
  commit: z.string().min(1),
  machine: ZBenchMachine,
  parameters: z.record(z.string(), ZJson),
  figures: z.array(ZBenchFigure),
  tables: z.array(ZBenchTable).optional(),
  invariants: z.array(ZBenchInvariant).optional(),
  notes: z.array(z.string()).optional(),
});

export type TBenchFigure = z.infer<typeof ZBenchFigure>;
export type TBenchTable = z.infer<typeof ZBenchTable>;
export type TBenchInvariant = z.infer<typeof ZBenchInvariant>;
export type TBenchMachine = z.infer<typeof ZBenchMachine>;
export type TBenchResult = z.infer<typeof ZBenchResult>;
export type TBenchResultInput = Omit<TBenchResult, "version" | "date" | "commit" | "machine">;

/** The repository root: bench-results/ lives there whatever the caller's working directory. */
const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "..", "..");

export function benchResultsDir(root: string = ROOT): string {
  return path.join(root, "bench-results");
}

export function machineInfo(): TBenchMachine {
  const cpus = os.cpus();
  return {
    cores: cpus.length,
    cpuModel: cpus[0]?.model.trim() ?? "unknown",
    memoryGiB: Math.round((os.totalmem() / 2 ** 30) * 10) / 10,
    node: process.version,
    platform: `${os.platform()} ${os.arch()}`,
    loadAverage: Math.round(os.loadavg()[0]! * 100) / 100,
  };
}

/** HEAD of the checkout at `root`, marked "+dirty" when tracked files differ from it; "unknown" outside git. */
export function gitCommit(root: string = ROOT): string {
  try {
    const head = execFileSync("git", ["rev-parse", "HEAD"], { cwd: root, encoding: "utf8", stdio: ["ignore", "pipe", "ignore"] }).trim();
    const dirty = execFileSync("git", ["status", "--porcelain", "--untracked-files=no"], {
      cwd: root,
      encoding: "utf8",
      stdio: ["ignore", "pipe", "ignore"],
    }).trim();
    return dirty ? `${head}+dirty` : head;
  } catch {
    return "unknown";
  }
}

/**
 * The kind of CPU a run had, as a file-name part: the same 2-core machine has come as an AMD EPYC
 * and an Intel Xeon VM of different speeds (bench/README.md), so a figure is read against runs on
 * its own kind.
 */
export function cpuKind(cpuModel: string): string {
  if (/\bAMD EPYC\b/i.test(cpuModel)) return "amd-epyc";
  if (/\bIntel\b.*\bXeon\b/i.test(cpuModel)) return "intel-xeon";
  const slug = cpuModel
    .toLowerCase()
    .replace(/\([^)]*\)/g, "")
    .replace(/[^a-z0-9]+/g, "-")
    .replace(/^-+|-+$/g, "")
    .slice(0, 40)
    .replace(/-+$/, "");
  return slug || "unknown";
}

/** Where the latest run on each other CPU kind is kept: `<dir>/other-cpus/<name>.<kind>.json`. */
export function otherCpusDir(dir: string = benchResultsDir()): string {
  return path.join(dir, "other-cpus");
}

/** A result file's result, or why it is none (unreadable, not JSON, not a result). */
function readResultFile(file: string): { result: TBenchResult } | { error: string } {
  try {
    const parsed = ZBenchResult.safeParse(JSON.parse(readFileSync(file, "utf8")));
    if (parsed.success) return { result: parsed.data };
    return { error: parsed.error.issues.map((i) => `${i.path.join(".") || "(root)"}: ${i.message}`).join("; ") };
  } catch (error) {
    return { error: (error as Error).message };
  }
}

function writeAtomically(file: string, text: string): void {
  const tmp = `${file}.${process.pid}.tmp`;
  writeFileSync(tmp, text);
  renameSync(tmp, file);
}

/**
 * Validates and writes `bench-results/<name>.json` (atomically: a reader never sees half a
 * file) and returns its path. The file it replaces, when it ran on another kind of CPU, moves to
 * other-cpus/ (its kind's latest), so the report shows each kind's last run side by side; this
 * kind's file there, superseded, goes. `options.dir`, `options.now` and `options.machine` exist
 * for tests.
 */
export function writeBenchResult(input: TBenchResultInput, options: { dir?: string; now?: Date; commit?: string; machine?: TBenchMachine } = {}): string {
  const result = ZBenchResult.parse({
    version: 1,
    ...input,
    date: (options.now ?? new Date()).toISOString(),
    commit: options.commit ?? gitCommit(),
    machine: options.machine ?? machineInfo(),
  });
  const dir = options.dir ?? benchResultsDir();
  mkdirSync(dir, { recursive: true });
  const file = path.join(dir, `${result.name}.json`);
  const kind = cpuKind(result.machine.cpuModel);
  const read = readResultFile(file);
  const previous = "result" in read ? read.result : null;
  const others = otherCpusDir(dir);
  if (previous !== null && cpuKind(previous.machine.cpuModel) !== kind) {
    mkdirSync(others, { recursive: true });
    writeAtomically(path.join(others, `${result.name}.${cpuKind(previous.machine.cpuModel)}.json`), `${JSON.stringify(previous, null, 2)}\n`);
  }
  writeAtomically(file, `${JSON.stringify(result, null, 2)}\n`);
  rmSync(path.join(others, `${result.name}.${kind}.json`), { force: true });
  return file;
}

/** Every valid result in `dir`, by name; files that do not parse are reported, not skipped silently. */
export function readBenchResults(dir: string = benchResultsDir()): { results: TBenchResult[]; invalid: { file: string; error: string }[] } {
  let files: string[];
  try {
    files = readdirSync(dir)
      .filter((f) => f.endsWith(".json"))
      .sort();
  } catch {
    return { results: [], invalid: [] };
  }
  const results: TBenchResult[] = [];
  const invalid: { file: string; error: string }[] = [];
  for (const file of files) {
    const read = readResultFile(path.join(dir, file));
    if ("result" in read) results.push(read.result);
    else invalid.push({ file, error: read.error });
  }
  return { results, invalid };
}

/** p-quantile (0..1) of already sorted samples, nearest rank. */
export function quantile(sorted: ArrayLike<number>, p: number): number {
  if (sorted.length === 0) return Number.NaN;
  return sorted[Math.min(sorted.length - 1, Math.max(0, Math.ceil(p * sorted.length) - 1))]!;
}

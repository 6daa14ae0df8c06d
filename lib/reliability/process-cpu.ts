import { readFileSync } from "node:fs";

/**
 * CPU seconds (user + system) a process has used so far, from /proc/<pid>/stat; null where there
 * is no /proc (or no such process). Benchmarks divide a server's CPU over a run by the requests it
 * answered: a cost per request that, unlike throughput, hardly depends on what else the machine runs.
 */
export function processCpuSeconds(pid: number | undefined): number | null {
  if (pid === undefined) return null;
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, "utf8");
    const fields = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
    return (Number(fields[11]) + Number(fields[12])) / 100;
  } catch {
    return null;
  }
}

/** Measures `run` and returns its result with the process's CPU microseconds per counted unit. */
export async function withCpuPerUnit<T>(pid: number | undefined, run: () => Promise<T>, units: (r: T) => number): Promise<{ result: T; cpuUsPerUnit: number | null }> {
  const before = processCpuSeconds(pid);
  const result = await run();
  const after = processCpuSeconds(pid);
  const n = units(result);
  return { result, cpuUsPerUnit: before === null || after === null || n <= 0 ? null : ((after - before) * 1e6) / n };
}

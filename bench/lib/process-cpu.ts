import { readdirSync, readFileSync } from "node:fs";

/**
 * CPU seconds (user + system) a process has used so far, from /proc/<pid>/stat; null where there
 * is no /proc (or no such process). Benchmarks divide a server's CPU over a run by the requests it
 * answered: a cost per request that, unlike throughput, hardly depends on what else the machine runs.
 */
export function processCpuSeconds(pid: number | undefined): number | null {
  const f = pid === undefined ? null : statFields(pid);
  return f === null ? null : cpuTicks(f) / 100;
}

/**
 * Measures `run` and returns its result with the process's CPU microseconds per counted unit and,
 * given the Postgres server's pid, the whole server's (postmaster, backends, WAL writer,
 * checkpointer, autovacuum: processTreeCpuSeconds).
 */
export async function withCpuPerUnit<T>(
  pid: number | undefined,
  run: () => Promise<T>,
  units: (r: T) => number,
  postgresPid?: number | null,
): Promise<{ result: T; cpuUsPerUnit: number | null; postgresCpuUsPerUnit: number | null }> {
  const before = processCpuSeconds(pid);
  const pgBefore = processTreeCpuSeconds(postgresPid);
  const result = await run();
  const after = processCpuSeconds(pid);
  const pgAfter = processTreeCpuSeconds(postgresPid);
  const n = units(result);
  const perUnit = (a: number | null, b: number | null) => (a === null || b === null || n <= 0 ? null : ((b - a) * 1e6) / n);
  return { result, cpuUsPerUnit: perUnit(before, after), postgresCpuUsPerUnit: perUnit(pgBefore, pgAfter) };
}

/** The fields of /proc/<pid>/stat (or of one thread's, /proc/<pid>/task/<tid>/stat) after the command's name; null when it is gone. */
function statFields(pid: number, tid?: string): string[] | null {
  try {
    const stat = readFileSync(tid === undefined ? `/proc/${pid}/stat` : `/proc/${pid}/task/${tid}/stat`, "utf8");
    return stat.slice(stat.lastIndexOf(")") + 2).split(" ");
  } catch {
    return null;
  }
}

/** utime + stime, in clock ticks (1/100 s). */
const cpuTicks = (f: string[]): number => Number(f[11]) + Number(f[12]);

/**
 * CPU seconds used so far by a process and all its descendants: its own, its reaped children's
 * (cutime/cstime, which a server such as Postgres's postmaster collects as backends exit) and its
 * live descendants'. Null where there is no /proc (or no such process).
 */
export function processTreeCpuSeconds(rootPid: number | null | undefined): number | null {
  if (rootPid == null) return null;
  const root = statFields(rootPid);
  if (root === null) return null;
  const children = new Map<number, number[]>();
  const own = new Map<number, number>();
  for (const entry of readdirSync("/proc")) {
    const pid = Number(entry);
    if (!Number.isInteger(pid) || pid <= 0) continue;
    const f = statFields(pid);
    if (f === null) continue;
    const ppid = Number(f[1]);
    own.set(pid, cpuTicks(f));
    const siblings = children.get(ppid);
    if (siblings) siblings.push(pid);
    else children.set(ppid, [pid]);
  }
  let ticks = cpuTicks(root) + Number(root[13]) + Number(root[14]);
  const stack = [...(children.get(rootPid) ?? [])];
  while (stack.length > 0) {
    const pid = stack.pop()!;
    ticks += own.get(pid) ?? 0;
    stack.push(...(children.get(pid) ?? []));
  }
  return ticks / 100;
}

/**
 * The pid of the Postgres server (postmaster) behind a connection when it runs on this machine:
 * the parent of the connection's backend. Null when /proc does not have that backend (a remote
 * server, a container).
 */
export async function postgresServerPid(query: (sql: string) => Promise<{ rows: { pid: number }[] }>): Promise<number | null> {
  const { rows } = await query("select pg_backend_pid() as pid");
  const f = statFields(rows[0]!.pid);
  return f === null ? null : Number(f[1]);
}

/**
 * CPU seconds used so far by a process's main thread and by all its other threads together (for
 * node: V8's helpers, where most of the garbage collector's parallel and concurrent work runs,
 * libuv's pool, the profiler). The process's total hides whether a server's CPU is its JavaScript
 * or the collector beside it. Null where there is no /proc (or no such process).
 */
export function threadCpuSeconds(pid: number | undefined): { main: number; others: number } | null {
  if (pid === undefined) return null;
  let tids: string[];
  try {
    tids = readdirSync(`/proc/${pid}/task`);
  } catch {
    return null;
  }
  const cpu = { main: 0, others: 0 };
  for (const tid of tids) {
    const f = statFields(pid, tid);
    // null: the thread ended since the listing.
    if (f !== null) cpu[Number(tid) === pid ? "main" : "others"] += cpuTicks(f) / 100;
  }
  return cpu;
}

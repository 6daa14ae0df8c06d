import { readFileSync } from "node:fs";
import { monitorEventLoopDelay } from "node:perf_hooks";
import { sampleMemory } from "./memory";

/**
 * Loaded with `--import` into a server under test (never imported by anything else: it takes
 * over the process's IPC channel): answers "sy:memory" with heap and RSS after a full GC, and
 * "sy:loop" with the event loop's stalls as the server saw them.
 *
 * A stall is a 10 ms timer that fired more than 40 ms late, with the main thread's CPU time over
 * the same span (Linux: /proc/self/task/<pid>/stat, 10 ms ticks; elsewhere the whole process's,
 * GC helper threads included, an upper bound). Busy (CPU close to the stall's length): the server's own code held the loop, a
 * request really stalled the others. Idle (CPU far below it): the process was not running at all,
 * waiting for a CPU on a loaded machine; no request of its own held it.
 */
export type TLoopStall = { at: number; lateMs: number; cpuMs: number };

const TICK_MS = 10;
const STALL_MS = 40;
const MAX_STALLS = 2_000;

/** The main thread's CPU time in ms: user + system ticks of its /proc task (one tick is 10 ms). */
function mainThreadCpuMs(): number {
  try {
    const fields = readFileSync(`/proc/self/task/${process.pid}/stat`, "utf8").split(") ")[1]!.split(" ");
    return (Number(fields[11]) + Number(fields[12])) * 10;
  } catch {
    const u = process.cpuUsage();
    return (u.user + u.system) / 1000;
  }
}

if (process.send) {
  const stalls: TLoopStall[] = [];
  const delay = monitorEventLoopDelay({ resolution: 10 });
  delay.enable();
  let last = performance.now();
  let lastCpu = mainThreadCpuMs();
  setInterval(() => {
    const now = performance.now();
    const cpu = mainThreadCpuMs();
    const lateMs = now - last - TICK_MS;
    if (lateMs > STALL_MS && stalls.length < MAX_STALLS) stalls.push({ at: performance.timeOrigin + last, lateMs, cpuMs: cpu - lastCpu });
    last = now;
    lastCpu = cpu;
  }, TICK_MS).unref();
  process.on("message", (m: unknown) => {
    if (m === "sy:memory") process.send?.({ type: "sy:memory", ...sampleMemory() });
    if (m === "sy:loop") process.send?.({ type: "sy:loop", stalls, p99Ms: delay.percentile(99) / 1e6, maxMs: delay.max / 1e6 });
  });
  // The channel must not keep a server alive that was told to stop.
  process.channel?.unref();
}

import { spawn } from "node:child_process";
import { once } from "node:events";
import { describe, expect, it } from "vitest";
import { processCpuSeconds, processTreeCpuSeconds, threadCpuSeconds, withCpuPerUnit } from "./process-cpu";

/**
 * A shell whose child burns `ms` of its own CPU (not of wall time: on a loaded machine the wall
 * clock runs ahead of the CPU a process gets) and exits, then the shell waits for a line on stdin.
 */
function burner(ms: number) {
  const script = `node -e "const s=process.cpuUsage(); for (;;) { const u=process.cpuUsage(s); if (u.user+u.system >= ${ms * 1000}) break; }" && echo done && read x`;
  return spawn("sh", ["-c", script], { stdio: ["pipe", "pipe", "inherit"] });
}

describe("process CPU", () => {
  it("counts a process tree's CPU, including children that have exited", async () => {
    const shell = burner(400);
    try {
      await once(shell.stdout!, "data");
      const own = processCpuSeconds(shell.pid)!;
      const tree = processTreeCpuSeconds(shell.pid)!;
      // The shell itself only waited; its exited child's busy loop is in the tree's count.
      expect(own).toBeLessThan(0.1);
      expect(tree).toBeGreaterThanOrEqual(0.3);
    } finally {
      shell.stdin!.end("\n");
      await once(shell, "exit");
    }
  });

  it("is null for a process that does not exist", () => {
    expect(processTreeCpuSeconds(2 ** 22 + 12345)).toBeNull();
    expect(processCpuSeconds(undefined)).toBeNull();
  });

  it("divides CPU by units, for the process and a second tree", async () => {
    const m = await withCpuPerUnit(
      process.pid,
      async () => {
        // Busy for 200 ms of this process's own CPU, not of wall time: on a loaded machine the
        // wall clock runs ahead of the CPU the process gets.
        const start = process.cpuUsage();
        while (process.cpuUsage(start).user + process.cpuUsage(start).system < 200_000) {
          // busy
        }
        return 4;
      },
      (n) => n,
      process.pid,
    );
    expect(m.result).toBe(4);
    // 200 ms over 4 units: about 50,000 µs each (ticks are 10 ms).
    expect(m.cpuUsPerUnit!).toBeGreaterThan(40_000);
    expect(m.postgresCpuUsPerUnit!).toBeGreaterThanOrEqual(m.cpuUsPerUnit! - 5_000);
  });

  it("splits a process's CPU between its main thread and the others", async () => {
    // A worker thread burns 400 ms of CPU and stays (an ended thread's CPU leaves /proc/<pid>/task)
    // while the main thread waits for it.
    const worker =
      'const s = process.cpuUsage(); while (process.cpuUsage(s).user + process.cpuUsage(s).system < 400000) {} require("node:worker_threads").parentPort.postMessage("done"); setInterval(() => {}, 1000);';
    const child = spawn(
      process.execPath,
      [
        "-e",
        `const w = new (require("node:worker_threads").Worker)(${JSON.stringify(worker)}, { eval: true });
         w.on("message", () => console.log("done"));
         process.stdin.once("data", () => process.exit(0));`,
      ],
      { stdio: ["pipe", "pipe", "inherit"] },
    );
    try {
      await once(child.stdout!, "data");
      const cpu = threadCpuSeconds(child.pid)!;
      expect(cpu.others).toBeGreaterThanOrEqual(0.3);
      expect(cpu.main).toBeLessThan(cpu.others);
    } finally {
      child.stdin!.end("\n");
      await once(child, "exit");
    }
    expect(threadCpuSeconds(2 ** 22 + 12345)).toBeNull();
  });
});

import type { ChildProcess } from "node:child_process";

/** Polls `${base}/api/v1/health` until it answers 200; fails early if the server process exits. */
export async function waitForHealth(base: string, server: ChildProcess, timeoutMs: number, intervalMs = 250): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    if (server.exitCode !== null) throw new Error(`server exited with code ${server.exitCode} before it was ready`);
    try {
      if ((await fetch(`${base}/api/v1/health`)).status === 200) return;
    } catch {
      // not listening yet
    }
    await new Promise((r) => setTimeout(r, intervalMs));
  }
  throw new Error(`server at ${base} was not healthy within ${timeoutMs} ms`);
}

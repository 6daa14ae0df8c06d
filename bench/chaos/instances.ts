import { spawn, type ChildProcess } from "node:child_process";
import path from "node:path";
import { freePort } from "../../test/support/free-port";

export type TInstanceOptions = {
  name: string;
  databaseUrl: string;
  apiKey: string;
  spoolDir: string;
  /** The repository root (where server.ts is). */
  dir: string;
  /** Extra environment (timings, durability). */
  env?: Record<string, string>;
  onCrash?: (name: string, tail: string) => void;
};

/** The parts of GET /api/v1/health a scenario reads. */
export type THealth = {
  status: string;
  dataplane: {
    dbAvailable: boolean;
    decisionLog: { queued: number; inFlight: number; dbUp: boolean; rowsSpooled: number; rowsReplayed: number; spool: { usedBytes: number; segments: number } };
  };
  telemetry: {
    controller: { leader: boolean; lastTickAgeMs: number | null };
    propagation: { listening: boolean };
    outcomeSpool: { usedBytes: number; segments: number } | null;
  };
};

/**
 * One `server.ts` process serving only the data plane (no Next build needed), on a fixed free
 * port so a restarted instance is reachable at the same URL, with its own spool directory (a
 * restart replays what a killed process left there).
 */
export class AppInstance {
  readonly name: string;
  url = "";
  private child: ChildProcess | null = null;
  private port = 0;
  private readonly output: string[] = [];
  private expectingExit = false;
  /** Exits nobody asked for (a crash), with the process's last lines. */
  readonly crashes: Array<{ code: number | null; signal: string | null; tail: string }> = [];

  constructor(private readonly opts: TInstanceOptions) {
    this.name = opts.name;
  }

  get pid(): number | null {
    return this.child?.pid ?? null;
  }

  get alive(): boolean {
    return this.child !== null && this.child.exitCode === null && this.child.signalCode === null;
  }

  /** The last lines the process printed, for failure messages. */
  tail(lines = 200): string {
    return this.output.join("").split("\n").slice(-lines).join("\n");
  }

  async start(timeoutMs = 120_000): Promise<void> {
    if (this.alive) return;
    this.port ||= await freePort();
    this.output.length = 0;
    this.expectingExit = false;
    const child = spawn(process.execPath, ["--import", "tsx", path.join(this.opts.dir, "server.ts")], {
      cwd: this.opts.dir,
      env: {
        ...process.env,
        NODE_ENV: "production",
        DATABASE_URL: this.opts.databaseUrl,
        PORT: String(this.port),
        HOST: "127.0.0.1",
        SWITCHYARD_SEED_DEMO: "0",
        SWITCHYARD_DATAPLANE_ONLY: "1",
        SWITCHYARD_API_KEY: this.opts.apiKey,
        SWITCHYARD_INSTANCE_ID: this.name,
        SPOOL_DIR: this.opts.spoolDir,
        ...this.opts.env,
      },
      stdio: ["ignore", "pipe", "pipe"],
    });
    this.child = child;
    const keep = (chunk: Buffer) => {
      this.output.push(chunk.toString());
      if (this.output.length > 400) this.output.splice(0, 200);
    };
    child.stderr!.on("data", keep);
    this.url = await new Promise<string>((resolve, reject) => {
      const timer = setTimeout(() => reject(new Error(`${this.name} did not start within ${timeoutMs} ms:\n${this.tail()}`)), timeoutMs);
      let seen: string | null = "";
      const onData = (chunk: Buffer) => {
        keep(chunk);
        if (seen === null) return;
        seen += chunk.toString();
        const m = /ready on (http:\/\/[\d.]+:\d+)/.exec(seen);
        if (m) {
          seen = null;
          clearTimeout(timer);
          child.off("exit", onExit);
          child.once("exit", (code, signal) => {
            if (!this.expectingExit) {
              this.crashes.push({ code, signal, tail: this.tail() });
              this.opts.onCrash?.(this.name, this.tail());
            }
          });
          resolve(m[1]!);
        }
      };
      const onExit = (code: number | null, signal: string | null) => {
        clearTimeout(timer);
        reject(new Error(`${this.name} exited (${signal ?? code}) before it was ready:\n${this.tail()}`));
      };
      child.stdout!.on("data", onData);
      child.once("exit", onExit);
    });
  }

  /** SIGKILL: no drain, no goodbye; resolves once the process is gone. */
  kill(): Promise<void> {
    return this.signal("SIGKILL");
  }

  /** SIGTERM: the server drains its decision log and closes; SIGKILL if it has not after graceMs. */
  stop(graceMs = 15_000): Promise<void> {
    return this.signal("SIGTERM", graceMs);
  }

  private signal(sig: NodeJS.Signals, graceMs?: number): Promise<void> {
    const child = this.child;
    if (!child || !this.alive) return Promise.resolve();
    this.expectingExit = true;
    return new Promise((resolve) => {
      const timer = graceMs === undefined ? null : setTimeout(() => child.kill("SIGKILL"), graceMs);
      child.once("exit", () => {
        if (timer) clearTimeout(timer);
        resolve();
      });
      child.kill(sig);
    });
  }

  async health(): Promise<THealth | null> {
    try {
      // The detailed report needs a key with the metrics scope; the bootstrap key has every scope.
      const res = await fetch(`${this.url}/api/v1/health`, { headers: { authorization: `Bearer ${this.opts.apiKey}` }, signal: AbortSignal.timeout(3_000) });
      return res.ok ? ((await res.json()) as THealth) : null;
    } catch {
      return null;
    }
  }
}

/** Every instance healthy: database reachable, both spools empty, notices arriving. */
export function fullyRecovered(h: THealth | null): boolean {
  if (!h) return false;
  const d = h.dataplane;
  return (
    d.dbAvailable &&
    d.decisionLog.spool.usedBytes === 0 &&
    d.decisionLog.queued === 0 &&
    (h.telemetry.outcomeSpool?.usedBytes ?? 0) === 0 &&
    h.telemetry.propagation.listening
  );
}

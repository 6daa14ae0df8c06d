import { spawn, type ChildProcess } from "node:child_process";
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { freePort } from "../../test/support/free-port";
import { waitForHealth } from "../../test/support/wait-for-health";

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "../..");

export type TServerProcess = {
  url: string;
  port: number;
  child: ChildProcess;
  /** The server's output so far (for failure messages). */
  output(): string;
  /** SIGKILL: an outage, not a shutdown (nothing is flushed). */
  kill(): Promise<void>;
  /** SIGSTOP / SIGCONT: the process holds its connections and answers nothing. */
  freeze(): void;
  thaw(): void;
  /** A new process on the same port and database, with `env` added to the first one's. */
  restart(env?: Record<string, string>): Promise<void>;
  stop(): Promise<void>;
};

/**
 * server.ts itself, data plane only (no Next), on a free port and the given database: what a
 * service talks to in production, started and stopped as a process.
 */
export async function startServerProcess(opts: { databaseUrl: string; apiKey: string; env?: Record<string, string> }): Promise<TServerProcess> {
  const port = await freePort();
  const dataDir = await mkdtemp(path.join(tmpdir(), "switchyard-client-test-"));
  let out = "";
  let child!: ChildProcess;
  const url = `http://127.0.0.1:${port}`;
  let extra: Record<string, string> = {};
  const launch = async () => {
    child = spawn(process.execPath, ["--import", "tsx", path.join(ROOT, "server.ts")], {
      cwd: ROOT,
      stdio: ["ignore", "pipe", "pipe"],
      env: {
        ...process.env,
        NODE_ENV: "production",
        DATABASE_URL: opts.databaseUrl,
        PORT: String(port),
        HOST: "127.0.0.1",
        SWITCHYARD_DATAPLANE_ONLY: "1",
        SWITCHYARD_API_KEY: opts.apiKey,
        // The demo catalogue and policies: a production start with DATABASE_URL is otherwise empty.
        SWITCHYARD_SEED_DEMO: "1",
        SWITCHYARD_INSTANCE_ID: `client-test:${port}`,
        SPOOL_DIR: path.join(dataDir, "spool"),
        SWITCHYARD_AUDIT_CHECKPOINT_DIR: path.join(dataDir, "audit"),
        SWITCHYARD_AUDIT_KEY: "client-test-audit-key-0123456789abcdef",
        ...opts.env,
        ...extra,
      },
    });
    child.stdout!.on("data", (c: Buffer) => (out += c.toString()));
    child.stderr!.on("data", (c: Buffer) => (out += c.toString()));
    await waitForHealth(url, child, 60_000, 100).catch((err: unknown) => {
      throw new Error(`${(err as Error).message}\n${out}`);
    });
  };
  const exited = () =>
    child.exitCode !== null || child.signalCode !== null ? Promise.resolve() : new Promise<void>((resolve) => child.once("exit", () => resolve()));
  await launch();
  return {
    url,
    port,
    get child() {
      return child;
    },
    output: () => out,
    async kill() {
      child.kill("SIGCONT");
      child.kill("SIGKILL");
      await exited();
    },
    freeze() {
      child.kill("SIGSTOP");
    },
    thaw() {
      child.kill("SIGCONT");
    },
    restart(env?: Record<string, string>) {
      if (env) extra = { ...extra, ...env };
      return launch();
    },
    async stop() {
      child.kill("SIGCONT");
      child.kill("SIGTERM");
      const timer = setTimeout(() => child.kill("SIGKILL"), 10_000);
      await exited();
      clearTimeout(timer);
      await rm(dataDir, { recursive: true, force: true });
    },
  };
}

/* eslint-disable @typescript-eslint/no-explicit-any -- JSON response bodies are asserted field by field */
import { spawn, type ChildProcess } from "node:child_process";
import path from "node:path";

/** A real server process (server.ts, data plane only) started by a test. */
export type TServerInstance = { name: string; url: string; child: ChildProcess; output: string[] };

export type TStartInstanceOptions = {
  name: string;
  databaseUrl: string;
  apiKey: string;
  spoolRoot: string;
  /** Extra or overriding environment (tick and poll periods). */
  env?: Record<string, string>;
};

/** Starts server.ts on a free port and resolves once it prints its address. */
export async function startServerInstance(o: TStartInstanceOptions): Promise<TServerInstance> {
  const child = spawn(process.execPath, ["--import", "tsx", "server.ts"], {
    cwd: process.cwd(),
    env: {
      ...process.env,
      DATABASE_URL: o.databaseUrl,
      PORT: "0",
      HOST: "127.0.0.1",
      SWITCHYARD_SEED_DEMO: "0",
      SWITCHYARD_DATAPLANE_ONLY: "1",
      SWITCHYARD_API_KEY: o.apiKey,
      SWITCHYARD_INSTANCE_ID: o.name,
      SPOOL_DIR: path.join(o.spoolRoot, o.name),
      CONTROLLER_TICK_MS: "500",
      CONTROLLER_LEADER_RETRY_MS: "200",
      METRICS_REFRESH_MS: "500",
      ...o.env,
    },
    stdio: ["ignore", "pipe", "pipe"],
  });
  const output: string[] = [];
  const url = await new Promise<string>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`${o.name} did not start:\n${output.join("")}`)), 60_000);
    child.stdout!.on("data", (chunk: Buffer) => {
      output.push(chunk.toString());
      const m = /ready on (http:\/\/[\d.]+:\d+)/.exec(output.join(""));
      if (m) {
        clearTimeout(timer);
        resolve(m[1]!);
      }
    });
    child.stderr!.on("data", (c: Buffer) => output.push(c.toString()));
    child.once("exit", (code) => reject(new Error(`${o.name} exited with ${code}:\n${output.join("")}`)));
  });
  return { name: o.name, url, child, output };
}

/** An authenticated JSON (or text) request to an instance. */
export async function callInstance(
  inst: TServerInstance,
  apiKey: string,
  method: string,
  route: string,
  body?: unknown,
): Promise<{ status: number; body: any }> {
  const res = await fetch(`${inst.url}${route}`, {
    method,
    headers: { "content-type": "application/json", authorization: `Bearer ${apiKey}` },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  const text = await res.text();
  return { status: res.status, body: text.startsWith("{") ? JSON.parse(text) : text };
}

/** One gauge's value from a Prometheus exposition text, or null when the series is absent. */
export function gauge(text: string, series: string): number | null {
  const line = text.split("\n").find((l) => l.startsWith(`${series} `));
  return line === undefined ? null : Number(line.slice(series.length + 1));
}

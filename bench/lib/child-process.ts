import { spawn, type ChildProcess } from "node:child_process";
import type http from "node:http";
import { createInterface } from "node:readline";

/**
 * The benchmarks' helper processes (load generators, mock upstreams, reference servers): each is
 * a TypeScript file run through tsx in a process of its own, so it never shares an event loop
 * with what it measures or serves.
 */
function spawnTsx(file: string, args: string[], nodeArgs: readonly string[] = []): ChildProcess {
  return spawn(process.execPath, [...nodeArgs, "--import", "tsx", file, ...args], {
    stdio: ["ignore", "pipe", "inherit"],
    env: { ...process.env, NODE_ENV: "production" },
  });
}

/** Runs `file` with `args` to its end and resolves with the JSON it printed. */
export function runJsonChild<T>(file: string, args: string[], what: string): Promise<T> {
  const child = spawnTsx(file, args);
  let out = "";
  child.stdout!.on("data", (c: Buffer) => (out += c.toString()));
  return new Promise((resolve, reject) => {
    // "close", not "exit": the output may still be in the pipe when the process has exited.
    child.once("close", (code) => (code === 0 ? resolve(JSON.parse(out) as T) : reject(new Error(`${what} exited with code ${code}`))));
  });
}

/** The child's side of runJsonChild: prints `value` and exits once all of it is written (a pipe takes a large write in several goes). */
export function exitWithJson(value: unknown): void {
  process.stdout.write(JSON.stringify(value), () => process.exit(0));
}

/** The child's side when it fails: the error on stderr, exit code 1. */
export function exitWithError(err: unknown): void {
  console.error(err);
  process.exit(1);
}

/** Starts a server child (`nodeArgs`: node's own flags, e.g. --cpu-prof); resolves once it printed its `{port}` line (announcePort). */
export function startServerChild(file: string, args: string[], what: string, nodeArgs: readonly string[] = []): Promise<{ child: ChildProcess; port: number }> {
  const child = spawnTsx(file, args, nodeArgs);
  return new Promise((resolve, reject) => {
    child.once("exit", (code) => reject(new Error(`${what} exited with code ${code} before it was ready`)));
    createInterface({ input: child.stdout! }).once("line", (line) => {
      child.removeAllListeners("exit");
      resolve({ child, port: (JSON.parse(line) as { port: number }).port });
    });
  });
}

/** The server child's side: listens on a free loopback port and prints `{port}` for startServerChild. */
export function announcePort(server: http.Server): Promise<void> {
  return new Promise((resolve, reject) => {
    server.once("error", reject);
    server.listen(0, "127.0.0.1", () => {
      process.stdout.write(`${JSON.stringify({ port: (server.address() as { port: number }).port })}\n`);
      resolve();
    });
  });
}

/**
 * SIGTERM, and resolves once the child has exited; SIGKILL after `graceMs` (Portkey's gateway was
 * seen ignoring SIGTERM while busy, which kept bench:gateway from ever exiting).
 */
export function stopChild(child: ChildProcess | null | undefined, graceMs = 10_000): Promise<void> {
  if (!child || child.exitCode !== null || child.signalCode !== null) return Promise.resolve();
  return new Promise((resolve) => {
    const kill = setTimeout(() => child.kill("SIGKILL"), graceMs);
    child.once("exit", () => {
      clearTimeout(kill);
      resolve();
    });
    child.kill("SIGTERM");
  });
}

import { spawn, type ChildProcess } from "node:child_process";
import http from "node:http";
import os from "node:os";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { parseArgs } from "node:util";
import { createRequire } from "node:module";
import { quantile, writeBenchResult } from "../lib/bench-results";
import { processTreeCpuSeconds, withCpuPerUnit } from "../lib/process-cpu";
import { freePort } from "../../test/support/free-port";
import { non2xxCount, runLoadInChild, type TLoadResult } from "../lib/closed-loop-load";
import { announcePort, startServerChild, stopChild } from "../lib/child-process";
import type { TTarget } from "./target";

// `npm run bench:gateway`: what a gateway adds on top of the provider call. One mock upstream
// (an OpenAI-compatible chat-completions endpoint with a fixed latency) is called four ways, one
// after another in the same run, by the same closed-loop load generator in a process of its own:
//   direct       the upstream itself (the baseline every "added" figure subtracts)
//   pass-through a bare node:http proxy with keep-alive (the floor for any gateway in Node)
//   portkey      Portkey's open-source gateway with a three-target fallback config
//   switchyard   POST /api/v1/execute/LLM_CHAT: decide, call, classify, record the outcome, log
// Added latency is the gateway's percentile minus the direct run's. All on 127.0.0.1. The
// pass-through is measured once; direct, Portkey and Switchyard in --rounds rounds (default 3),
// back to back within a round, and the figures are the rounds' medians.

const here = fileURLToPath(import.meta.url);
const require = createRequire(import.meta.url);

const FIRST_WARMUP_SECONDS = 10;

const CHAT_REQUEST = { model: "bench-model", messages: [{ role: "user", content: "Say hello in one word." }], max_tokens: 16 };

function completionBody(): string {
  return JSON.stringify({
    id: "chatcmpl-bench",
    object: "chat.completion",
    created: 1_764_460_800,
    model: "bench-model",
    choices: [{ index: 0, message: { role: "assistant", content: "Hello" }, finish_reason: "stop" }],
    usage: { prompt_tokens: 12, completion_tokens: 1, total_tokens: 13 },
  });
}

async function serveUpstream(latencyMs: number): Promise<void> {
  const body = completionBody();
  const server = http.createServer((req, res) => {
    req.resume();
    req.on("end", () => {
      const answer = () => {
        res.writeHead(200, { "content-type": "application/json", "content-length": Buffer.byteLength(body) });
        res.end(body);
      };
      if (latencyMs > 0) setTimeout(answer, latencyMs);
      else answer();
    });
  });
  server.keepAliveTimeout = 65_000;
  await announcePort(server);
}

/** The reference: forwards the body to the upstream over a keep-alive agent and streams the answer back. */
async function servePassThrough(upstream: string): Promise<void> {
  const target = new URL(upstream);
  const agent = new http.Agent({ keepAlive: true, maxSockets: 256 });
  const server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on("data", (c: Buffer) => chunks.push(c));
    req.on("end", () => {
      const body = Buffer.concat(chunks);
      const up = http.request(
        {
          host: target.hostname,
          port: target.port,
          path: "/v1/chat/completions",
          method: "POST",
          agent,
          headers: { "content-type": "application/json", "content-length": body.length },
        },
        (ur) => {
          res.writeHead(ur.statusCode ?? 502, { "content-type": ur.headers["content-type"] ?? "application/json" });
          ur.pipe(res);
        },
      );
      up.on("error", () => {
        res.writeHead(502).end();
      });
      up.end(body);
    });
  });
  server.keepAliveTimeout = 65_000;
  await announcePort(server);
}

function spawnRole(args: string[]): Promise<{ child: ChildProcess; port: number }> {
  return startServerChild(here, args, args.join(" "));
}

async function waitForHttp(url: string, init: RequestInit, timeoutMs: number): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  let last = "";
  while (Date.now() < deadline) {
    try {
      const res = await fetch(url, init);
      const text = await res.text();
      if (res.ok) return;
      last = `${res.status} ${text.slice(0, 200)}`;
    } catch (err) {
      last = (err as Error).message;
    }
    await new Promise((r) => setTimeout(r, 250));
  }
  throw new Error(`${url} did not answer 200 within ${timeoutMs} ms (last: ${last})`);
}

async function startPortkey(upstream: string): Promise<{ child: ChildProcess; target: TTarget }> {
  const port = await freePort();
  const entry = require.resolve("@portkey-ai/gateway/build/start-server.js");
  const child = spawn(process.execPath, [entry, `--port=${port}`, "--headless"], {
    stdio: ["ignore", "ignore", "inherit"],
    env: { ...process.env, NODE_ENV: "production" },
  });
  // The equivalent of Switchyard's LLM_CHAT with three eligible providers: fall back along the targets in order.
  const config = {
    strategy: { mode: "fallback" },
    targets: [
      { provider: "openai", api_key: "sk-bench-primary", custom_host: `${upstream}/v1` },
      { provider: "openai", api_key: "sk-bench-secondary", custom_host: `${upstream}/v1` },
      { provider: "openai", api_key: "sk-bench-tertiary", custom_host: `${upstream}/v1` },
    ],
  };
  const target: TTarget = {
    label: "portkey",
    url: `http://127.0.0.1:${port}/v1/chat/completions`,
    headers: { "content-type": "application/json", "x-portkey-config": JSON.stringify(config) },
    body: JSON.stringify(CHAT_REQUEST),
  };
  await waitForHttp(target.url, { method: "POST", headers: target.headers, body: target.body }, 30_000);
  return { child, target: { ...target, pid: child.pid } };
}

const us = (v: number) => (Number.isFinite(v) ? (v / 1000).toFixed(2) : "-");

function printTable(results: TLoadResult[], direct: TLoadResult): void {
  const header = ["target", "req/s", "p50 ms", "p99 ms", "added p50 ms", "added p99 ms", "CPU µs/req", "PG µs/req", "non-2xx", "errors"];
  const rows = results.map((r) => {
    const non2xx = non2xxCount(r.status);
    const self = r === direct;
    const cpu = r.cpuUsPerRequest?.toFixed(0) ?? "-";
    const pgCpu = r.postgresCpuUsPerRequest?.toFixed(0) ?? "-";
    return [
      r.label,
      r.perSecond.toFixed(0),
      us(r.p50Us),
      us(r.p99Us),
      self ? "-" : us(r.p50Us - direct.p50Us),
      self ? "-" : us(r.p99Us - direct.p99Us),
      cpu,
      pgCpu,
      String(non2xx),
      String(r.errors),
    ];
  });
  const widths = header.map((h, i) => Math.max(h.length, ...rows.map((r) => r[i]!.length)));
  const line = (cells: string[]) => cells.map((c, i) => (i === 0 ? c.padEnd(widths[i]!) : c.padStart(widths[i]!))).join("  ");
  console.log(line(header));
  for (const r of rows) console.log(line(r));
}

type TRunOptions = { seconds: number; warmup: number; connections: number; latencyMs: number; rounds: number; only: Set<string> | null };
type TMeasure = (t: TTarget) => Promise<TLoadResult>;
const CHAT_HEADERS = { "content-type": "application/json" };

/** A target's first warm-up is longer (its JIT and caches start cold); then the measured run with the target's CPU per request. */
function createMeasure(o: TRunOptions): TMeasure {
  const warmed = new Set<string>();
  return async (t) => {
    const spec = { url: t.url, headers: t.headers, body: t.body, connections: o.connections, label: t.label };
    await runLoadInChild({ ...spec, seconds: warmed.has(t.label) ? o.warmup : Math.max(o.warmup, FIRST_WARMUP_SECONDS) });
    warmed.add(t.label);
    const measured = await withCpuPerUnit(
      t.pid,
      () => runLoadInChild({ ...spec, seconds: o.seconds }),
      (x) => x.requests,
      t.postgresPid,
    );
    const r: TLoadResult = { ...measured.result, cpuUsPerRequest: measured.cpuUsPerUnit, postgresCpuUsPerRequest: measured.postgresCpuUsPerUnit };
    const cpu =
      (r.cpuUsPerRequest == null ? "" : `, ${r.cpuUsPerRequest.toFixed(0)} µs CPU per request`) +
      (r.postgresCpuUsPerRequest == null ? "" : ` (+ ${r.postgresCpuUsPerRequest.toFixed(0)} µs Postgres)`);
    console.log(`  ${t.label}: ${r.perSecond.toFixed(0)} req/s, p50 ${us(r.p50Us)} ms, p99 ${us(r.p99Us)} ms${cpu}`);
    return r;
  };
}

/** Portkey and Switchyard in front of the upstream; both stay up (idle when not measured) so the rounds can alternate between them. */
async function startGateways(upstreamUrl: string, only: Set<string> | null, children: ChildProcess[], closers: Array<() => Promise<void>>): Promise<TTarget[]> {
  const gateways: TTarget[] = [];
  if (!only || only.has("portkey")) {
    const portkey = await startPortkey(upstreamUrl);
    children.push(portkey.child);
    gateways.push(portkey.target);
  }
  if (!only || only.has("switchyard")) {
    const { startSwitchyardTarget } = await import("./bench-gateway-switchyard");
    const sy = await startSwitchyardTarget(upstreamUrl, path.resolve(".data"));
    closers.push(sy.close);
    gateways.push(sy.target);
  }
  return gateways;
}

/**
 * This machine's speed drifts within minutes: each round measures the upstream and both gateways
 * back to back (in alternating order), and the ratios are taken per round.
 */
async function runRounds(o: TRunOptions, measure: TMeasure, directTarget: TTarget, gateways: readonly TTarget[]): Promise<TRound[]> {
  const perRound: TRound[] = [];
  const idlePids = gateways.flatMap((g) => [g.pid, g.postgresPid]).filter((p): p is number => p != null);
  for (let i = 0; i < o.rounds; i++) {
    console.log(`round ${i + 1} of ${o.rounds}`);
    const round: TRound = { direct: await measure(directTarget), byLabel: new Map() };
    for (const g of i % 2 === 0 ? gateways : [...gateways].reverse()) {
      // A gateway can go on working after its load ends: the next target is measured once the
      // others are quiet, not while they compete with it.
      const waited = await untilQuiet(idlePids);
      if (waited.busyPercent !== null) console.log(`  (still ${waited.busyPercent.toFixed(0)}% of a core busy after ${waited.seconds} s; measuring anyway)`);
      else if (waited.seconds > 1) console.log(`  (waited ${waited.seconds} s for the other targets to go quiet)`);
      round.byLabel.set(g.label, await measure(g));
    }
    perRound.push(round);
  }
  return perRound;
}

/** Medians over the rounds, the Switchyard-to-Portkey ratios, the result file; exit code 1 on non-2xx answers or connection errors. */
function reportGateway(o: TRunOptions, perRound: readonly TRound[], passResult: TLoadResult | null, gateways: readonly TTarget[]): void {
  const { rounds } = o;
  const direct = medianResult(perRound.map((r) => r.direct));
  const results = [direct, ...(passResult ? [passResult] : []), ...gateways.map((g) => medianResult(perRound.map((r) => r.byLabel.get(g.label)!)))];
  console.log("");
  console.log(rounds > 1 ? `medians of ${rounds} rounds:` : "");
  printTable(results, direct);
  const ratios = perRound.map(roundRatios).filter((x): x is TRatios => x !== null);
  const ratio = ratios.length > 0 ? medianRatios(ratios) : null;
  if (ratio) {
    console.log("");
    if (rounds > 1) {
      for (const [i, r] of ratios.entries())
        console.log(`  round ${i + 1}: added p50 ${r.p50.toFixed(2)}×, added p99 ${r.p99.toFixed(2)}×, throughput ${r.throughput.toFixed(1)}×`);
    }
    console.log(
      `switchyard vs portkey${rounds > 1 ? " (median of the rounds)" : ""}: added p50 ${ratio.p50.toFixed(2)}× (target ≤ 0.5), added p99 ${ratio.p99.toFixed(2)}× (target ≤ 0.5), throughput ${ratio.throughput.toFixed(1)}× (target ≥ 5)`,
    );
    if (ratio.cpu !== null) {
      const pk = results.find((r) => r.label === "portkey")!;
      const sy = results.find((r) => r.label === "switchyard")!;
      console.log(
        `CPU per request: portkey ${pk.cpuUsPerRequest!.toFixed(0)} µs, switchyard ${cpuWithPostgres(sy).toFixed(0)} µs with its Postgres (${ratio.cpu.toFixed(1)}× less; the machine's two cores also run the upstream and the load generator)`,
      );
    }
  }
  writeGatewayResult(results, direct, ratio, ratios, { seconds: o.seconds, warmup: o.warmup, connections: o.connections, latencyMs: o.latencyMs, rounds });
  const all = [...(passResult ? [passResult] : []), ...perRound.flatMap((r) => [r.direct, ...r.byLabel.values()])];
  const failed = [...new Set(all.filter((r) => r.errors > 0 || Object.keys(r.status).some((s) => !s.startsWith("2"))).map((r) => r.label))];
  if (failed.length > 0) {
    console.error(`non-2xx answers or connection errors from: ${failed.join(", ")}`);
    process.exitCode = 1;
  }
}

async function runBenchmark(o: TRunOptions): Promise<void> {
  const children: ChildProcess[] = [];
  const closers: Array<() => Promise<void>> = [];
  try {
    const upstream = await spawnRole(["--role", "upstream", "--latency-ms", String(o.latencyMs)]);
    children.push(upstream.child);
    const upstreamUrl = `http://127.0.0.1:${upstream.port}`;
    console.log(
      `gateway benchmark: upstream latency ${o.latencyMs} ms, ${o.connections} connections, ${o.seconds} s per target after ${o.warmup} s warm-up (${FIRST_WARMUP_SECONDS} s the first time), ` +
        `${o.rounds} round${o.rounds === 1 ? "" : "s"}, ${os.cpus().length} cores`,
    );
    const measure = createMeasure(o);
    const directTarget: TTarget = {
      label: "direct",
      url: `${upstreamUrl}/v1/chat/completions`,
      headers: CHAT_HEADERS,
      body: JSON.stringify(CHAT_REQUEST),
      pid: upstream.child.pid,
    };
    let passResult: TLoadResult | null = null;
    if (!o.only || o.only.has("pass-through")) {
      const pass = await spawnRole(["--role", "pass-through", "--upstream", upstreamUrl]);
      children.push(pass.child);
      passResult = await measure({
        label: "pass-through",
        url: `http://127.0.0.1:${pass.port}/v1/chat/completions`,
        headers: CHAT_HEADERS,
        body: JSON.stringify(CHAT_REQUEST),
        pid: pass.child.pid,
      });
      await stopChild(pass.child);
    }
    const gateways = await startGateways(upstreamUrl, o.only, children, closers);
    const perRound = await runRounds(o, measure, directTarget, gateways);
    reportGateway(o, perRound, passResult, gateways);
  } finally {
    for (const close of closers) await close();
    for (const c of children) await stopChild(c);
  }
}

async function main(): Promise<void> {
  const { values } = parseArgs({
    options: {
      role: { type: "string" },
      upstream: { type: "string" },
      "latency-ms": { type: "string", default: "0" },
      seconds: { type: "string", default: "10" },
      "warmup-seconds": { type: "string", default: "3" },
      connections: { type: "string", default: "20" },
      only: { type: "string" },
      rounds: { type: "string", default: "3" },
    },
  });
  if (values.role === "upstream") return serveUpstream(Number(values["latency-ms"]));
  if (values.role === "pass-through") return servePassThrough(values.upstream!);
  const rounds = Number(values.rounds);
  if (!Number.isInteger(rounds) || rounds < 1) throw new RangeError(`--rounds must be a whole number of at least 1, got ${values.rounds}`);
  return runBenchmark({
    seconds: Number(values.seconds),
    warmup: Number(values["warmup-seconds"]),
    connections: Number(values.connections),
    latencyMs: Number(values["latency-ms"]),
    rounds,
    only: values.only ? new Set(values.only.split(",")) : null,
  });
}

/**
 * Waits, one second at a time (up to `maxSeconds`), until `pids` together use under 5% of a core.
 * busyPercent: their use in the last second when they never went quiet, else null.
 */
async function untilQuiet(pids: readonly number[], maxSeconds = 20): Promise<{ seconds: number; busyPercent: number | null }> {
  const total = () => pids.reduce((sum, pid) => sum + (processTreeCpuSeconds(pid) ?? 0), 0);
  let busy = 0;
  for (let s = 1; s <= maxSeconds; s++) {
    const before = total();
    await new Promise((r) => setTimeout(r, 1000));
    busy = (total() - before) * 100;
    if (busy < 5) return { seconds: s, busyPercent: null };
  }
  return { seconds: maxSeconds, busyPercent: busy };
}

type TRound = { direct: TLoadResult; byLabel: Map<string, TLoadResult> };
/** Switchyard's figures over Portkey's in one round: added latencies (lower is better), throughput and CPU per request (Portkey's over Switchyard's). */
type TRatios = { p50: number; p99: number; throughput: number; cpu: number | null };

/** The middle round's value (nearest rank: the lower middle for an even number of rounds). */
const median = (values: readonly number[]): number =>
  quantile(
    [...values].sort((a, b) => a - b),
    0.5,
  );

const medianOrNull = (values: readonly (number | null | undefined)[]): number | null => (values.every((v) => v != null) ? median(values as number[]) : null);

/** One target's rounds as one result: the median of each figure; counts and status codes summed. */
function medianResult(rs: readonly TLoadResult[]): TLoadResult {
  if (rs.length === 1) return rs[0]!;
  const status: Record<string, number> = {};
  for (const r of rs) for (const [code, n] of Object.entries(r.status)) status[code] = (status[code] ?? 0) + n;
  return {
    label: rs[0]!.label,
    requests: rs.reduce((n, r) => n + r.requests, 0),
    perSecond: median(rs.map((r) => r.perSecond)),
    status,
    errors: rs.reduce((n, r) => n + r.errors, 0),
    p50Us: median(rs.map((r) => r.p50Us)),
    p90Us: median(rs.map((r) => r.p90Us)),
    p99Us: median(rs.map((r) => r.p99Us)),
    maxUs: Math.max(...rs.map((r) => r.maxUs)),
    cpuUsPerRequest: medianOrNull(rs.map((r) => r.cpuUsPerRequest)),
    postgresCpuUsPerRequest: medianOrNull(rs.map((r) => r.postgresCpuUsPerRequest)),
    generatorCpuUs: median(rs.map((r) => r.generatorCpuUs)),
    seconds: rs.reduce((n, r) => n + r.seconds, 0),
    collected: [],
  };
}

function roundRatios(r: TRound): TRatios | null {
  const pk = r.byLabel.get("portkey");
  const sy = r.byLabel.get("switchyard");
  if (!pk || !sy) return null;
  const added = (x: TLoadResult, p: "p50Us" | "p99Us") => x[p] - r.direct[p];
  return {
    p50: added(sy, "p50Us") / added(pk, "p50Us"),
    p99: added(sy, "p99Us") / added(pk, "p99Us"),
    throughput: sy.perSecond / pk.perSecond,
    cpu: cpuPerRequestRatio(pk, sy),
  };
}

function medianRatios(rs: readonly TRatios[]): TRatios {
  return {
    p50: median(rs.map((r) => r.p50)),
    p99: median(rs.map((r) => r.p99)),
    throughput: median(rs.map((r) => r.throughput)),
    cpu: medianOrNull(rs.map((r) => r.cpu)),
  };
}

/** A target's CPU per request with its Postgres server's (Portkey has no database). */
const cpuWithPostgres = (r: TLoadResult): number => (r.cpuUsPerRequest ?? 0) + (r.postgresCpuUsPerRequest ?? 0);

/** Portkey's CPU per request over Switchyard's, Switchyard's counted with its Postgres server's. */
function cpuPerRequestRatio(pk: TLoadResult | undefined, sy: TLoadResult | undefined): number | null {
  if (!pk?.cpuUsPerRequest || !sy?.cpuUsPerRequest) return null;
  return pk.cpuUsPerRequest / cpuWithPostgres(sy);
}

function writeGatewayResult(
  results: TLoadResult[],
  direct: TLoadResult,
  ratio: TRatios | null,
  ratios: readonly TRatios[],
  p: { seconds: number; warmup: number; connections: number; latencyMs: number; rounds: number },
): void {
  const ms = (v: number) => Math.round(v) / 1000;
  const x = (v: number, digits: number) => Math.round(v * 10 ** digits) / 10 ** digits;
  const pk = results.find((r) => r.label === "portkey");
  const sy = results.find((r) => r.label === "switchyard");
  const figures = [];
  if (sy) {
    figures.push({
      label: "switchyard execute throughput",
      value: Math.round(sy.perSecond),
      unit: "req/s",
      ...(pk ? { target: `≥ ${Math.round(5 * pk.perSecond)} (5× portkey)` } : {}),
    });
    figures.push({
      label: "switchyard added p50",
      value: ms(sy.p50Us - direct.p50Us),
      unit: "ms",
      ...(pk ? { target: `≤ ${ms((pk.p50Us - direct.p50Us) / 2)} (half of portkey)` } : {}),
    });
    figures.push({
      label: "switchyard added p99",
      value: ms(sy.p99Us - direct.p99Us),
      unit: "ms",
      ...(pk ? { target: `≤ ${ms((pk.p99Us - direct.p99Us) / 2)} (half of portkey)` } : {}),
    });
  }
  if (pk) {
    figures.push({ label: "portkey throughput", value: Math.round(pk.perSecond), unit: "req/s" });
    figures.push({ label: "portkey added p50", value: ms(pk.p50Us - direct.p50Us), unit: "ms" });
    figures.push({ label: "portkey added p99", value: ms(pk.p99Us - direct.p99Us), unit: "ms" });
  }
  if (ratio) {
    const per = p.rounds > 1 ? " (median of the rounds' ratios)" : "";
    figures.push({ label: `throughput, switchyard over portkey${per}`, value: x(ratio.throughput, 2), unit: "×", target: "≥ 5" });
    figures.push({ label: `added p50, switchyard over portkey${per}`, value: x(ratio.p50, 2), unit: "×", target: "≤ 0.5" });
    figures.push({ label: `added p99, switchyard over portkey${per}`, value: x(ratio.p99, 2), unit: "×", target: "≤ 0.5" });
    if (ratio.cpu !== null)
      figures.push({ label: `portkey's CPU per request over switchyard's (server + its Postgres)${per}`, value: x(ratio.cpu, 1), unit: "×" });
  }
  const tables = [
    {
      title:
        p.rounds > 1
          ? `per target, medians of ${p.rounds} rounds (added = target percentile minus the direct run's)`
          : "per target (added = target percentile minus the direct run's)",
      columns: ["target", "req/s", "p50 ms", "p99 ms", "added p50 ms", "added p99 ms", "server CPU µs/req", "Postgres CPU µs/req"],
      rows: results.map((r) => [
        r.label,
        Math.round(r.perSecond),
        ms(r.p50Us),
        ms(r.p99Us),
        r === direct ? null : ms(r.p50Us - direct.p50Us),
        r === direct ? null : ms(r.p99Us - direct.p99Us),
        r.cpuUsPerRequest == null ? null : Math.round(r.cpuUsPerRequest),
        r.postgresCpuUsPerRequest == null ? null : Math.round(r.postgresCpuUsPerRequest),
      ]),
    },
  ];
  if (ratios.length > 1) {
    tables.push({
      title: "each round: switchyard over portkey, measured back to back",
      columns: ["round", "throughput", "added p50", "added p99", "CPU per request (portkey over switchyard)"],
      rows: ratios.map((r, i) => [`${i + 1}`, x(r.throughput, 2), x(r.p50, 2), x(r.p99, 2), r.cpu === null ? null : x(r.cpu, 1)]),
    });
  }
  writeBenchResult({
    name: "gateway",
    title: "Gateway overhead: Switchyard execute vs Portkey vs a bare pass-through",
    command: `npm run bench:gateway -- --seconds ${p.seconds} --connections ${p.connections} --latency-ms ${p.latencyMs} --rounds ${p.rounds}`,
    parameters: {
      seconds: p.seconds,
      warmupSeconds: p.warmup,
      firstWarmupSeconds: Math.max(p.warmup, FIRST_WARMUP_SECONDS),
      connections: p.connections,
      upstreamLatencyMs: p.latencyMs,
      rounds: p.rounds,
    },
    figures,
    tables,
    invariants: results.map((r) => ({
      label: `${r.label}: every answer 2xx`,
      ok: r.errors === 0 && Object.keys(r.status).every((s) => s.startsWith("2")),
      detail: JSON.stringify(r.status) + (r.errors ? `, ${r.errors} errors` : ""),
    })),
  });
}

main().then(
  () => {
    if (!process.argv.includes("--role")) process.exit(process.exitCode ?? 0);
  },
  (err: unknown) => {
    console.error(`bench:gateway: ${err instanceof Error ? err.message : String(err)}`);
    process.exit(1);
  },
);

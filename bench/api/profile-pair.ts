import { mkdirSync, readdirSync, readFileSync, rmSync } from "node:fs";
import path from "node:path";
import { parseArgs } from "node:util";
import pg from "pg";
import { createScratchDatabase, type TScratchDatabase } from "../../lib/db/drift";
import type { TEmbeddedDatabase } from "../../lib/db/embedded";
import { applyMigrations } from "../../lib/db/migrate";
import { benchPostgresServer } from "../lib/bench-postgres";
import { stopChild } from "../lib/child-process";
import { postgresServerPid, threadCpuSeconds, withCpuPerUnit } from "../lib/process-cpu";
import { startReferenceServer } from "./bench-api-reference";
import { load, startServer, WARM_SECONDS } from "./decide-load";
import { summarise, type TProfile, type TProfileSummary } from "./profile-summary";

/**
 * `npx tsx bench/api/profile-pair.ts [--seconds 8] [--connections 64]`: decide and its reference
 * (bench-api-reference.ts) one after the other under the same closed loop, each under node's
 * --cpu-prof, and where their main threads' time went, stage by stage (profile-summary.ts's
 * stages), in µs per answer side by side. Only the samples of the measured seconds count (not
 * boot, warm-up or shutdown). The database is a scratch one on DATABASE_URL's server, or a
 * throwaway embedded cluster. Findings: bench/api/README.md.
 */

/** threads: CPU µs per answer of the main thread and of the others (V8's collector helpers, mostly). */
type TThreads = { main: number; others: number } | null;
type TSide = { label: string; perSecond: number; cpuUs: number | null; threads: TThreads; summary: TProfileSummary; profile: string };

const nowUs = () => Number(process.hrtime.bigint() / 1000n);

/** The main thread's profile of `pid` in `dir` (node names it CPU.<date>.<time>.<pid>.0.<seq>.cpuprofile). */
function mainThreadProfile(dir: string, pid: number): string {
  const file = readdirSync(dir).find((f) => f.includes(`.${pid}.0.`) && f.endsWith(".cpuprofile"));
  if (!file) throw new Error(`no profile of process ${pid} in ${dir}`);
  return path.join(dir, file);
}

/** Warm-up, then the measured closed loop; its answers, server CPU and time window. */
async function measure(pid: number, port: number, opts: { seconds: number; connections: number; pgPid: number | null }, prefix: string) {
  await load(port, WARM_SECONDS, opts.connections, `${prefix}-warm`, false);
  const fromUs = nowUs();
  const threadsBefore = threadCpuSeconds(pid);
  const m = await withCpuPerUnit(
    pid,
    () => load(port, opts.seconds, opts.connections, prefix, false),
    (r) => r.ok,
    opts.pgPid,
  );
  const threadsAfter = threadCpuSeconds(pid);
  const perAnswer = (a: number, b: number) => ((b - a) * 1e6) / m.result.ok;
  const threads: TThreads =
    threadsBefore && threadsAfter && m.result.ok > 0
      ? { main: perAnswer(threadsBefore.main, threadsAfter.main), others: perAnswer(threadsBefore.others, threadsAfter.others) }
      : null;
  return { answers: m.result.ok, perSecond: m.result.ok / m.result.seconds, cpuUs: m.cpuUsPerUnit, threads, window: { fromUs, toUs: nowUs() } };
}

async function side(
  label: string,
  dir: string,
  start: string,
  run: () => Promise<{ pid: number; answers: number; perSecond: number; cpuUs: number | null; threads: TThreads; window: { fromUs: number; toUs: number } }>,
): Promise<TSide> {
  const r = await run();
  const profile = mainThreadProfile(dir, r.pid);
  const summary = summarise(JSON.parse(readFileSync(profile, "utf8")) as TProfile, process.cwd(), r.answers, 12, { start, window: r.window });
  return { label, perSecond: r.perSecond, cpuUs: r.cpuUs, threads: r.threads, summary, profile };
}

function print(ref: TSide, dec: TSide): void {
  const fmt = (x: number | null | undefined) => (x == null ? "–" : x.toFixed(1));
  for (const s of [ref, dec]) {
    console.log(
      `${s.label.padEnd(9)} ${Math.round(s.perSecond)}/s, ${fmt(s.cpuUs)} µs server CPU per answer (main thread ${fmt(s.threads?.main)}, other threads ${fmt(s.threads?.others)}); profile ${path.relative(process.cwd(), s.profile)}`,
    );
  }
  const us = (s: TSide, stage: string) => s.summary.stages.find((x) => x.stage === stage)?.usPerDecide ?? 0;
  const stages = [...new Set([...dec.summary.stages, ...ref.summary.stages].map((x) => x.stage))].sort((a, b) => us(dec, b) - us(dec, a));
  console.log("\n| stage (main thread, µs per answer) | reference | decide | difference |\n| --- | ---: | ---: | ---: |");
  for (const stage of stages) {
    const [a, b] = [us(ref, stage), us(dec, stage)];
    if (a >= 0.1 || b >= 0.1) console.log(`| ${stage} | ${fmt(a)} | ${fmt(b)} | ${fmt(b - a)} |`);
  }
  const busy = (s: TSide) => s.summary.stages.reduce((sum, x) => sum + (x.usPerDecide ?? 0), 0);
  console.log(`| **busy** | **${fmt(busy(ref))}** | **${fmt(busy(dec))}** | **${fmt(busy(dec) - busy(ref))}** |`);
  console.log("\ndecide's top functions by self time (ms over the measured seconds):");
  for (const t of dec.summary.top) console.log(`${t.ms.toFixed(0).padStart(7)} ms  ${t.fn}  ${t.where}  [${t.stage}]`);
}

async function main(): Promise<void> {
  const { values } = parseArgs({ options: { seconds: { type: "string", default: "8" }, connections: { type: "string", default: "64" } } });
  const opts = { seconds: Number(values.seconds), connections: Number(values.connections) };
  const dir = path.resolve(".data", "profiles", `pair-${Date.now()}`);
  mkdirSync(dir, { recursive: true });
  let cluster: TEmbeddedDatabase | null = null;
  let scratch: TScratchDatabase | null = null;
  try {
    const server = await benchPostgresServer(path.resolve(".data", "postgres-bench"), 54331);
    cluster = server.cluster;
    scratch = await createScratchDatabase(server.url, "switchyard_bench");
    await applyMigrations(scratch.url);
    const client = new pg.Client({ connectionString: scratch.url });
    await client.connect();
    const pgPid = await postgresServerPid((sql) => client.query<{ pid: number }>(sql)).finally(() => client.end());
    const profileArgs = ["--cpu-prof", "--cpu-prof-dir", dir];
    const database = scratch.url;
    const ref = await side("reference", dir, "bench/api/bench-api-reference.ts", async () => {
      const r = await startReferenceServer(database, profileArgs);
      try {
        return { pid: r.child.pid!, ...(await measure(r.child.pid!, r.port, { ...opts, pgPid }, "ref")) };
      } finally {
        await r.stop();
      }
    });
    const dec = await side("decide", dir, "lib/dataplane/decide/handler.ts", async () => {
      const s = await startServer(database, path.resolve(".data", `spool-pair-${process.pid}`), "sync", dir);
      try {
        return { pid: s.child.pid!, ...(await measure(s.child.pid!, s.port, { ...opts, pgPid }, "decide")) };
      } finally {
        await stopChild(s.child);
      }
    });
    print(ref, dec);
  } finally {
    rmSync(path.resolve(".data", `spool-pair-${process.pid}`), { recursive: true, force: true });
    await scratch?.drop();
    await cluster?.stop();
  }
}

main().then(
  () => process.exit(0),
  (err: unknown) => {
    console.error(`profile-pair: ${err instanceof Error ? err.message : String(err)}`);
    process.exit(1);
  },
);

import { readFileSync } from "node:fs";
import path from "node:path";
import { parseArgs } from "node:util";

/**
 * `npx tsx bench/api/profile-summary.ts <file.cpuprofile> [--decides N] [--top 25] [--json]`: where the
 * server's CPU went under `npm run bench:api -- --cpu-prof`, by stage of the decide path. Each
 * sample's self time goes to the stage of its own frame's file; a frame without one (a builtin
 * such as JSON.stringify, a native call) inherits its caller's stage, so serialising the answer
 * counts as building the answer and not as "native". Counting starts at the first sample under
 * the decide handler: the server's boot (tsx compiling, seeding) is not the hot path.
 */

type TCallFrame = { functionName: string; url: string; lineNumber: number };
type TNode = { id: number; callFrame: TCallFrame; children?: number[] };
export type TProfile = { nodes: TNode[]; samples: number[]; timeDeltas: number[]; startTime: number };

/** Stages in match order: the first whose pattern matches a frame's path (relative to the repo) names it. */
const STAGES: Array<[string, RegExp]> = [
  ["decide: router-core", /^router-core\//],
  ["parse and guards (body, JSON guard, zod)", /^lib\/edge\/(json-guard|http)\.ts|^node_modules\/zod\/|^lib\/dataplane\/decide\/schema\.ts/],
  ["auth (API key)", /^lib\/edge\/authenticate\.ts|^lib\/auth\//],
  ["idempotency", /^lib\/dataplane\/decide\/idempotency\.ts/],
  ["answer and record (body, row, id)", /^lib\/dataplane\/decide\/body\.ts|^lib\/dataplane\/decision-log\/(rows|columns)\.ts|^lib\/dataplane\/decision-id\.ts/],
  ["rollup", /^lib\/dataplane\/decision-log\/rollup\.ts/],
  ["log write and group commit", /^lib\/dataplane\/decision-log\/|^node_modules\/(pg|pg-protocol|pg-pool|pg-types|postgres-[a-z]+)\//],
  ["metrics and telemetry", /^lib\/dataplane\/(metrics|telemetry)\/|^lib\/dataplane\/event-loop-delay\.ts/],
  ["handler and routing", /^lib\/dataplane\/decide\/handler\.ts|^lib\/edge\//],
  ["other project code", /^lib\/|^server\.ts/],
  ["the reference's handler", /^bench\/api\/bench-api-reference\.ts/],
  ["Prisma (background queries: refresh, controller)", /^node_modules\/@prisma\/|^wasm:\/\//],
  ["node: http, sockets, streams", /^node:/],
  ["other packages", /^node_modules\//],
];

const SPECIAL: Record<string, string> = {
  "(garbage collector)": "garbage collection",
  "(program)": "V8 and libuv (program)",
  "(idle)": "idle",
  "(root)": "V8 and libuv (program)",
};

/** The frame's path relative to the repository (node: and native frames as they are). */
function relativeUrl(url: string, root: string): string {
  if (!url.startsWith("file://")) return url;
  const rel = path.relative(root, decodeURIComponent(url.slice("file://".length)));
  // A package resolved outside the root (a copy of the tree whose node_modules is a symlink) is still the package.
  const packages = rel.indexOf("node_modules/");
  return packages > 0 ? rel.slice(packages) : rel;
}

/** Node's own helpers that a stage calls (hashing, timers, buffers): their time is that stage's, like a builtin's. */
const INHERITS = /^node:(internal\/)?(crypto|timers|buffer|util|url|querystring)\b|^node:internal\/(crypto|util|validators|errors)\//;

function stageOfUrl(rel: string): string | null {
  if (rel === "" || INHERITS.test(rel)) return null;
  for (const [name, re] of STAGES) if (re.test(rel)) return name;
  return "other";
}

export type TProfileSummary = {
  totalMs: number;
  busyMs: number;
  stages: Array<{ stage: string; ms: number; share: number; usPerDecide: number | null }>;
  top: Array<{ fn: string; where: string; stage: string; ms: number }>;
};

/**
 * What to count: from the first sample under a frame of `start` (a path the frame's file ends
 * with; decide's handler by default), and only samples taken within `window` when given (µs on
 * the monotonic clock the profile's startTime uses, which is process.hrtime's on Linux).
 */
export type TSummaryScope = { start?: string; window?: { fromUs: number; toUs: number } };

export function summarise(profile: TProfile, root: string, decides: number | null, topN: number, scope: TSummaryScope = {}): TProfileSummary {
  const byId = new Map(profile.nodes.map((n) => [n.id, n]));
  const parent = new Map<number, number>();
  for (const n of profile.nodes) for (const c of n.children ?? []) parent.set(c, n.id);
  const stageOf = new Map<number, string>();
  const resolve = (id: number): string => {
    const known = stageOf.get(id);
    if (known !== undefined) return known;
    const node = byId.get(id)!;
    // Own keys only: a frame named toString or constructor is not one of these.
    const special = Object.hasOwn(SPECIAL, node.callFrame.functionName) ? SPECIAL[node.callFrame.functionName] : undefined;
    const own = special ?? stageOfUrl(relativeUrl(node.callFrame.url, root));
    const p = parent.get(id);
    const stage = own ?? (p === undefined ? "native" : resolve(p));
    stageOf.set(id, stage);
    return stage;
  };
  // Under the handler: the first sample whose stack holds its file starts the count.
  const handlerFile = scope.start ?? "lib/dataplane/decide/handler.ts";
  const underHandler = (id: number): boolean => {
    for (let cur: number | undefined = id; cur !== undefined; cur = parent.get(cur)) {
      if (byId.get(cur)!.callFrame.url.endsWith(handlerFile)) return true;
    }
    return false;
  };
  const start = profile.samples.findIndex(underHandler);
  const stageUs = new Map<string, number>();
  const nodeUs = new Map<number, number>();
  let totalUs = 0;
  // Each sample's time: the profile's start plus the deltas so far.
  let at = profile.startTime;
  for (let i = 0; i < Math.max(0, start); i++) at += profile.timeDeltas[i] ?? 0;
  for (let i = Math.max(0, start); i < profile.samples.length; i++) {
    at += profile.timeDeltas[i] ?? 0;
    if (scope.window && (at < scope.window.fromUs || at > scope.window.toUs)) continue;
    const id = profile.samples[i]!;
    const dt = profile.timeDeltas[i + 1] ?? 0;
    totalUs += dt;
    const stage = resolve(id);
    stageUs.set(stage, (stageUs.get(stage) ?? 0) + dt);
    nodeUs.set(id, (nodeUs.get(id) ?? 0) + dt);
  }
  const busyUs = totalUs - (stageUs.get("idle") ?? 0);
  const stages = [...stageUs.entries()]
    .filter(([s]) => s !== "idle")
    .sort((a, b) => b[1] - a[1])
    .map(([stage, us]) => ({ stage, ms: us / 1000, share: us / busyUs, usPerDecide: decides ? us / decides : null }));
  // Functions by self time, merged across the call tree's copies of the same frame.
  const perFn = new Map<string, { fn: string; where: string; stage: string; ms: number }>();
  for (const [id, us] of nodeUs) {
    const f = byId.get(id)!.callFrame;
    const where = `${relativeUrl(f.url, root) || "(native)"}:${f.lineNumber + 1}`;
    const key = `${f.functionName}@${where}`;
    const cur = perFn.get(key) ?? { fn: f.functionName || "(anonymous)", where, stage: resolve(id), ms: 0 };
    cur.ms += us / 1000;
    perFn.set(key, cur);
  }
  const top = [...perFn.values()]
    .filter((x) => x.stage !== "idle")
    .sort((a, b) => b.ms - a.ms)
    .slice(0, topN);
  return { totalMs: totalUs / 1000, busyMs: busyUs / 1000, stages, top };
}

function main(): void {
  const { values, positionals } = parseArgs({
    allowPositionals: true,
    options: {
      // Decides answered over the profiled span (bench:api prints them): adds µs per decide to each stage.
      decides: { type: "string" },
      top: { type: "string", default: "25" },
      json: { type: "boolean", default: false },
    },
  });
  const file = positionals[0];
  if (!file) throw new Error("usage: profile-summary.ts <file.cpuprofile> [--decides N] [--top N] [--json]");
  const profile = JSON.parse(readFileSync(file, "utf8")) as TProfile;
  const decides = values.decides ? Number(values.decides) : null;
  const s = summarise(profile, process.cwd(), decides, Number(values.top));
  if (values.json) {
    process.stdout.write(`${JSON.stringify(s, null, 2)}\n`);
    return;
  }
  console.log(`profiled ${(s.totalMs / 1000).toFixed(1)} s from the first decide, ${(s.busyMs / 1000).toFixed(1)} s busy`);
  console.log("| stage | self time ms | share of busy | µs per decide |");
  console.log("|---|---|---|---|");
  for (const x of s.stages)
    console.log(`| ${x.stage} | ${x.ms.toFixed(0)} | ${(100 * x.share).toFixed(1)}% | ${x.usPerDecide === null ? "" : x.usPerDecide.toFixed(1)} |`);
  console.log("\ntop functions by self time (builtins named by their own frame):");
  for (const t of s.top) console.log(`${t.ms.toFixed(0).padStart(7)} ms  ${t.fn}  ${t.where}  [${t.stage}]`);
}

if (process.argv[1] && import.meta.url.endsWith(path.basename(process.argv[1]))) main();

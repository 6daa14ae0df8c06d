import { parseArgs } from "node:util";
import path from "node:path";
import { DEFAULT_SCALE_CH_DIR, openScaleClickHouse, describeTableBytes, type TScaleClickHouse } from "./clickhouse";
import { openScaleDatabase, DEFAULT_SCALE_DATA_DIR } from "./database";
import { createProgressBar } from "./progress";
import { seedScale } from "./seed";

// `npm run seed:scale -- --decisions 10000000 --days 7 [--database-url URL | --data-dir DIR] [--reset] [--seed N] [--store clickhouse]`
// Writes a week of simulated decisions with their outcomes, share samples, shift events and
// breaker history (bench/scale/README.md). Without --database-url (or DATABASE_URL)
// it uses an embedded cluster of its own in .data/scale/postgres, which `npm run bench:scale`
// and `npm run bench:console` then read. `--store clickhouse`: decisions and outcomes go to ClickHouse
// (an embedded chdb in --clickhouse-dir, default .data/scale-ch/chdb, beside its Postgres in
// .data/scale-ch/postgres), as a server in ClickHouse mode writes them.

const USAGE =
  "usage: npm run seed:scale -- --decisions N --days D [--database-url URL | --data-dir DIR] [--reset] [--seed N] [--batch N] [--store postgres|clickhouse] [--clickhouse-dir DIR] [--clickhouse-batch N]";

function positive(name: string, value: string | undefined, fallback: number, integer: boolean): number {
  if (value === undefined) return fallback;
  const n = Number(value.replaceAll("_", ""));
  if (!Number.isFinite(n) || n <= 0 || (integer && !Number.isInteger(n))) {
    throw new RangeError(`--${name} must be a positive ${integer ? "integer" : "number"}, got ${JSON.stringify(value)}`);
  }
  return n;
}

async function main(): Promise<number> {
  const { values } = parseArgs({
    options: {
      decisions: { type: "string" },
      days: { type: "string" },
      "database-url": { type: "string" },
      "data-dir": { type: "string" },
      seed: { type: "string" },
      batch: { type: "string" },
      reset: { type: "boolean", default: false },
      store: { type: "string", default: "postgres" },
      "clickhouse-dir": { type: "string" },
      "clickhouse-batch": { type: "string" },
      help: { type: "boolean", default: false },
    },
  });
  if (values.help) {
    process.stdout.write(`${USAGE}\n`);
    return 0;
  }
  const decisions = positive("decisions", values.decisions, 1_000_000, true);
  const days = positive("days", values.days, 7, false);
  if (days > 30) throw new RangeError(`--days must be at most 30 (the decision log's default retention), got ${days}`);
  const seed = positive("seed", values.seed, 42, true);
  const batch = positive("batch", values.batch, 5_000, true);
  if (values.store !== "postgres" && values.store !== "clickhouse")
    throw new RangeError(`--store must be postgres or clickhouse, got ${JSON.stringify(values.store)}`);
  const clickHouseDir = values.store === "clickhouse" ? (values["clickhouse-dir"] ?? DEFAULT_SCALE_CH_DIR) : null;
  const clickHouseBatch = positive("clickhouse-batch", values["clickhouse-batch"], 100_000, true);
  const log = (line: string) => process.stderr.write(`seed:scale: ${line}\n`);
  const db = await openScaleDatabase({
    databaseUrl: values["database-url"] ?? process.env.DATABASE_URL,
    dataDir: values["data-dir"] ?? (clickHouseDir ? path.join(clickHouseDir, "postgres") : DEFAULT_SCALE_DATA_DIR),
    log,
  });
  let clickHouse: TScaleClickHouse | null = null;
  log(db.embedded ? `embedded cluster in ${db.dataDir}` : "database from --database-url / DATABASE_URL");
  if (clickHouseDir) {
    clickHouse = await openScaleClickHouse(clickHouseDir);
    log(`ClickHouse mode: embedded chdb in ${path.resolve(clickHouseDir, "chdb")}, ${clickHouseBatch.toLocaleString("en-US")} decisions per insert`);
  }
  const bar = createProgressBar({ total: decisions, label: "decisions" });
  // Ctrl-C stops the load where it is and still finishes cleanly (partitions re-attached, indexes
  // built, final shares written): a second Ctrl-C exits at once.
  let stop = false;
  process.on("SIGINT", () => {
    if (stop) process.exit(130);
    stop = true;
    log("stopping after the current epoch (Ctrl-C again to abort)");
  });
  try {
    const r = await seedScale({
      databaseUrl: db.url,
      decisions,
      days,
      seed,
      batch,
      reset: values.reset,
      ...(clickHouse ? { clickHouse: clickHouse.client, clickHouseBatch } : {}),
      shouldStop: () => stop,
      log,
      onProgress: (p) => bar.update(p.decisions, p.elapsedMs, `(+${p.outcomes.toLocaleString("en-US")} outcomes)`),
    });
    bar.done();
    const n = (v: number) => Math.round(v).toLocaleString("en-US");
    const gib = (b: number) => `${(b / 2 ** 30).toFixed(2)} GiB`;
    process.stdout.write(
      [
        `seeded ${n(r.decisions)} decisions${r.stoppedEarly ? " (stopped early)" : ""} from ${new Date(r.from).toISOString()} to ${new Date(r.to).toISOString()}`,
        `  outcomes: ${n(r.callOutcomes)} provider calls, ${n(r.businessOutcomes)} business (${((r.businessOutcomes / r.decisions) * 100).toFixed(1)}% of decisions)`,
        `  controller: ${n(r.shareSamples)} share samples, ${n(r.shiftEvents)} shift events; ${n(r.breakerEvents)} breaker transitions; ${n(r.metricBuckets)} metric buckets`,
        `  load: ${(r.loadMs / 1000).toFixed(1)} s, ${n(r.decisionsPerSecond)} decisions/s, ${n(r.rowsPerSecond)} rows/s (all tables); analyze ${(r.analyzeMs / 1000).toFixed(1)} s`,
        `  size: decision log ${gib(r.tableBytes.decision)}, outcomes ${gib(r.tableBytes.outcomes)}`,
        ...(r.clickHouseBytes ? describeTableBytes(r.clickHouseBytes, r.decisions).map((l) => `  ClickHouse ${l}`) : []),
        "",
      ].join("\n"),
    );
    return 0;
  } finally {
    await clickHouse?.close();
    await db.stop();
  }
}

main().then(
  (code) => process.exit(code),
  (err: unknown) => {
    process.stderr.write(`\nseed:scale: ${err instanceof Error ? err.message : String(err)}\n`);
    process.exit(1);
  },
);

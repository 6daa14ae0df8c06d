import { randomBytes } from "node:crypto";
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import { createPrisma, type PrismaClient } from "../../lib/db/client";
import { createScratchDatabase, type TScratchDatabase } from "../../lib/db/drift";
import { applyMigrations } from "../../lib/db/migrate";
import { demoSmsPolicyYaml, seedDemo } from "../../lib/demo/seed-demo";
import { parseFactorList, type TFactorListInput } from "../../router-core/index";
import { startStoppableCluster, type TStoppableCluster } from "./cluster";
import { AppInstance, fullyRecovered } from "./instances";
import { startMockProviders } from "./mock-provider";

export type TScenarioOptions = {
  /** The repository root. */
  dir: string;
  instances?: number;
  /** Environment for every instance (timings, durability). */
  env?: Record<string, string>;
  /** An existing server to create the database on (the test suite's); otherwise a stoppable cluster of its own. */
  serverUrl?: string;
  /** Fields of the seeded SEND_SMS factor list to change before the instances start. */
  policy?: Partial<TFactorListInput>;
  log?: (line: string) => void;
};

export type TScenario = {
  cluster: TStoppableCluster | null;
  databaseUrl: string;
  prisma: PrismaClient;
  apiKey: string;
  instances: AppInstance[];
  providers: Awaited<ReturnType<typeof startMockProviders>>;
  /** Polls every instance's health until all are fully recovered (or timeoutMs passes); returns ms waited or null. */
  waitRecovered(timeoutMs: number): Promise<number | null>;
  close(): Promise<void>;
};

/**
 * A fresh migrated database with the demo catalogue and the SEND_SMS policy (the paper's
 * Listing 1), N server.ts instances on it (data plane only, one spool directory each) and the
 * mock providers. close() stops everything it started and deletes the data.
 */
export async function startScenario(opts: TScenarioOptions): Promise<TScenario> {
  const log = opts.log ?? (() => {});
  let cluster: TStoppableCluster | null = null;
  let scratch: TScratchDatabase | null = null;
  let prisma: PrismaClient | null = null;
  let spoolRoot: string | null = null;
  const instances: AppInstance[] = [];
  let providers: Awaited<ReturnType<typeof startMockProviders>> | null = null;

  const close = async () => {
    await Promise.all(instances.map((i) => i.stop()));
    await providers?.close();
    await prisma?.$disconnect().catch(() => {});
    if (cluster) await cluster.destroy();
    else await scratch?.drop().catch(() => {});
    if (spoolRoot) await rm(spoolRoot, { recursive: true, force: true });
  };

  try {
    let serverUrl = opts.serverUrl;
    if (!serverUrl) {
      log("starting a PostgreSQL cluster of its own");
      cluster = await startStoppableCluster();
      serverUrl = cluster.adminUrl;
    }
    scratch = await createScratchDatabase(serverUrl, "switchyard_chaos");
    await applyMigrations(scratch.url);
    prisma = createPrisma(scratch.url);
    await seedDemo(prisma);
    if (opts.policy) await changeSmsPolicy(prisma, opts.policy);
    providers = await startMockProviders();
    spoolRoot = await mkdtemp(path.join(tmpdir(), "switchyard-chaos-"));
    const apiKey = `chaos-${randomBytes(12).toString("hex")}`;
    const count = opts.instances ?? 3;
    for (let i = 1; i <= count; i++) {
      instances.push(
        new AppInstance({
          name: `instance-${i}`,
          databaseUrl: scratch.url,
          apiKey,
          spoolDir: path.join(spoolRoot, `instance-${i}`),
          dir: opts.dir,
          env: opts.env,
          onCrash: (name, tail) => log(`${name} exited unexpectedly:\n${tail}`),
        }),
      );
    }
    log(`starting ${count} server.ts instances (data plane only)`);
    // One at a time: several compiling TypeScript at once on two cores multiplies each start-up.
    for (const inst of instances) await inst.start();
    const databaseUrl = scratch.url;
    const db = prisma;
    const mock = providers;
    return {
      cluster,
      databaseUrl,
      prisma: db,
      apiKey,
      instances,
      providers: mock,
      async waitRecovered(timeoutMs) {
        const t0 = performance.now();
        while (performance.now() - t0 < timeoutMs) {
          // An instance the scenario killed and left down has nothing to recover; a crash is reported on its own.
          const live = instances.filter((i) => i.alive);
          const health = await Promise.all(live.map((i) => i.health()));
          if (live.length > 0 && health.every(fullyRecovered)) return performance.now() - t0;
          await new Promise((r) => setTimeout(r, 100));
        }
        return null;
      },
      close,
    };
  } catch (err) {
    await close();
    throw err;
  }
}

/** Rewrites the seeded SEND_SMS version in place, before any instance has loaded it (the version number marks the change). */
async function changeSmsPolicy(prisma: PrismaClient, changes: Partial<TFactorListInput>): Promise<void> {
  const base = parseFactorList(demoSmsPolicyYaml());
  if (!base.ok) throw new Error("the demo SEND_SMS policy does not parse");
  const parsed = parseFactorList(JSON.stringify({ ...base.value, ...changes, max_metric_age_seconds: undefined }));
  if (!parsed.ok) throw new Error(`policy changes do not parse: ${parsed.errors.map((e) => `${e.path}: ${e.message}`).join("; ")}`);
  const pointer = await prisma.operationPolicy.findUniqueOrThrow({ where: { operationKey: "SEND_SMS" } });
  await prisma.factorListVersion.update({ where: { id: pointer.activeVersionId! }, data: { document: parsed.value, version: { increment: 100 } } });
}

import { startLoad, type Load } from "./load";
import { crashInvariant, figure, ledgerInvariants, phaseTable, serverErrorInvariant, type TFaultReport, unknownDecisionInvariant } from "./report";
import { startScenario } from "./scenario";
import { sleep } from "./sleep";
import { checkLedger } from "./verify";

export type TDbOutageOptions = {
  dir: string;
  /** Decide calls per second (each followed by a provider call and an outcome). */
  rate: number;
  steadySeconds: number;
  outageSeconds: number;
  /** Load keeps running at least this long after full recovery. */
  afterSeconds: number;
  /** Full recovery must come within this long after Postgres is back, else the run fails. */
  recoveryTimeoutSeconds: number;
  log?: (line: string) => void;
};

/**
 * Three instances under steady decide + outcome load; Postgres is stopped for outageSeconds and
 * started again. Decides must keep being answered from the cached routing state (spooled, fsynced),
 * outcomes spooled, and once Postgres is back every acknowledged decision and outcome must be in
 * its table after the spools drained.
 */
export async function runDbOutage(o: TDbOutageOptions): Promise<TFaultReport> {
  const log = o.log ?? (() => {});
  const s = await startScenario({ dir: o.dir, log });
  let load: Load | null = null;
  try {
    const cluster = s.cluster!;
    load = startLoad({ targets: s.instances, apiKey: s.apiKey, rate: o.rate, providersUrl: s.providers.url });
    load.phase("steady");
    log(`steady load: ${o.rate} decides/s for ${o.steadySeconds} s`);
    await sleep(o.steadySeconds * 1000);

    log(`stopping PostgreSQL for ${o.outageSeconds} s`);
    load.phase("outage");
    const stopT0 = performance.now();
    await cluster.stop();
    const stopMs = performance.now() - stopT0;
    const outageStartAt = load.elapsedMs;
    await sleep(Math.max(0, o.outageSeconds * 1000 - stopMs));

    log("starting PostgreSQL again");
    const startT0 = performance.now();
    await cluster.start();
    const startMs = performance.now() - startT0;
    load.phase("recovery");
    const backAt = load.elapsedMs;
    const recoveryMs = await s.waitRecovered(o.recoveryTimeoutSeconds * 1000);
    log(
      recoveryMs === null
        ? `not recovered within ${o.recoveryTimeoutSeconds} s`
        : `fully recovered ${Math.round(recoveryMs)} ms after PostgreSQL accepted connections`,
    );
    load.phase("after");
    await sleep(o.afterSeconds * 1000);
    await load.stop();
    // The last flows' outcomes may have been spooled by a lagging probe: wait for every spool to drain.
    const drainedMs = await s.waitRecovered(o.recoveryTimeoutSeconds * 1000);

    const health = await Promise.all(s.instances.map((i) => i.health()));
    const ledger = await checkLedger(
      s.databaseUrl,
      load.acknowledged.map((a) => a.id),
      load.outcomesAcknowledged,
    );
    const outage = load.phases.get("outage")!;
    const firstCommitted = load.acknowledged.find((a) => a.atMs > backAt && a.durability === "committed");
    const spooledDuringOutage = outage.durability.spooled ?? 0;
    const answered = outage.decideStatus["200"] ?? 0;
    const rowsReplayed = health.reduce((n, h) => n + (h?.dataplane.decisionLog.rowsReplayed ?? 0), 0);

    return {
      parameters: {
        rate: o.rate,
        steadySeconds: o.steadySeconds,
        outageSeconds: o.outageSeconds,
        afterSeconds: o.afterSeconds,
        instances: s.instances.length,
        durability: "sync",
      },
      figures: [
        figure("decides sent during the outage", outage.decides, "requests"),
        figure("decides answered during the outage (fail-static, 200)", answered, "requests"),
        figure("share answered during the outage", outage.decides === 0 ? null : (100 * answered) / outage.decides, "%", "100"),
        figure("of those, spooled (fsynced locally, logged after)", spooledDuringOutage, "decisions"),
        figure("decision rows replayed from the spools", rowsReplayed, "rows"),
        figure("PostgreSQL fast shutdown took", stopMs, "ms"),
        figure("PostgreSQL start took", startMs, "ms"),
        figure("first committed decide after PostgreSQL was back", firstCommitted ? firstCommitted.atMs - backAt : null, "ms"),
        figure("full recovery after PostgreSQL was back (all instances ok, spools drained)", recoveryMs, "ms"),
        figure("outage window as the load saw it", backAt - outageStartAt, "ms"),
      ],
      tables: [phaseTable(load.phases)],
      invariants: [
        {
          label: "full recovery (spools drained, database ok on every instance)",
          ok: recoveryMs !== null && drainedMs !== null,
          detail: recoveryMs === null ? `not within ${o.recoveryTimeoutSeconds} s` : `${Math.round(recoveryMs)} ms`,
        },
        serverErrorInvariant(load.phases),
        unknownDecisionInvariant(load.phases),
        crashInvariant(s.instances),
        ...ledgerInvariants(ledger),
      ],
      notes: [
        "Each flow is decide (round robin over the instances) → call the selected mock provider (and the next eligible one if it fails) → the provider_call outcomes as one batch to the other instance.",
        "Outcome 404s would mean an outcome reached an instance after PostgreSQL was back but before the other instance had replayed its decision, and was refused: the decision_spool_backlog announcement (and the instance's own outage window) holds such outcomes in the spool instead (README).",
        "Phases: a flow counts in the phase current when it started; 'recovery' runs from PostgreSQL accepting connections to full recovery.",
      ],
    };
  } finally {
    await load?.stop();
    await s.close();
  }
}

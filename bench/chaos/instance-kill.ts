import { startLoad, type Load } from "./load";
import { crashInvariant, figure, ledgerInvariants, phaseTable, serverErrorInvariant, type TFaultReport } from "./report";
import { startScenario, type TScenario } from "./scenario";
import { sleep } from "./sleep";
import { checkLedger } from "./verify";

export type TInstanceKillOptions = {
  dir: string;
  rate: number;
  steadySeconds: number;
  /** How long the killed instance stays down before it is started again. */
  downSeconds: number;
  afterSeconds: number;
  /** Start the killed instance again (default); the quick test leaves it dead, since a start can take a minute on a busy machine. */
  restart?: boolean;
  /** An existing server to create the database on (the test suite's); otherwise a cluster of its own. */
  serverUrl?: string;
  log?: (line: string) => void;
};

/**
 * Three instances under load with sync durability; one is SIGKILLed mid-load and started again.
 * Every decision it acknowledged before dying must be in the table: sync answers only after the
 * commit, so the kill can cost requests in flight (the caller sees a reset, never a 200) but no
 * acknowledged decision. The load generator keeps sending to the dead instance, as a load
 * balancer would until its health check notices: those are the connection errors.
 */
export async function runInstanceKill(o: TInstanceKillOptions): Promise<TFaultReport> {
  const s = await startScenario({ dir: o.dir, serverUrl: o.serverUrl, env: { DECISION_DURABILITY: "sync" }, log: o.log });
  try {
    return await instanceKillOn(s, o);
  } finally {
    await s.close();
  }
}

/** The scenario on running instances (the last one is killed and restarted); the quick test shares them with other checks. */
export async function instanceKillOn(s: TScenario, o: Omit<TInstanceKillOptions, "dir" | "serverUrl">): Promise<TFaultReport> {
  const log = o.log ?? (() => {});
  let load: Load | null = null;
  try {
    const victim = s.instances[s.instances.length - 1]!;
    load = startLoad({ targets: s.instances, apiKey: s.apiKey, rate: o.rate, providersUrl: s.providers.url });
    load.phase("steady");
    log(`steady load: ${o.rate} decides/s for ${o.steadySeconds} s`);
    await sleep(o.steadySeconds * 1000);

    log(`SIGKILL ${victim.name} (pid ${victim.pid})`);
    load.phase("one instance dead");
    const ackedBeforeKill = load.acknowledged.filter((a) => a.instance === victim.name).length;
    await victim.kill();
    await sleep(o.downSeconds * 1000);

    let restartMs: number | null = null;
    if (o.restart !== false) {
      log(`starting ${victim.name} again`);
      load.phase("restarting");
      const restartT0 = performance.now();
      await victim.start();
      restartMs = performance.now() - restartT0;
      load.phase("after restart");
    }
    await sleep(o.afterSeconds * 1000);
    await load.stop();
    const recoveredMs = await s.waitRecovered(30_000);

    const ledger = await checkLedger(
      s.databaseUrl,
      load.acknowledged.map((a) => a.id),
      load.outcomesAcknowledged,
    );
    const dead = load.phases.get("one instance dead")!;
    return {
      parameters: {
        rate: o.rate,
        steadySeconds: o.steadySeconds,
        downSeconds: o.downSeconds,
        afterSeconds: o.afterSeconds,
        instances: s.instances.length,
        durability: "sync",
      },
      figures: [
        figure(`decisions ${victim.name} acknowledged before the kill`, ackedBeforeKill, "decisions"),
        figure("decides sent while one instance was dead", dead.decides, "requests"),
        figure("answered by the surviving instance (200)", dead.decideStatus["200"] ?? 0, "requests"),
        figure("refused or reset by the dead instance (no answer)", (dead.decideStatus.connection ?? 0) + (dead.decideStatus.timeout ?? 0), "requests"),
        figure("restart until ready (tsx start, migrations check, config load)", restartMs, "ms"),
        figure("acknowledged decisions checked", ledger.acknowledgedDecisions, "decisions"),
      ],
      tables: [phaseTable(load.phases)],
      invariants: [
        {
          label: o.restart === false ? "surviving instance healthy" : "killed instance restarted and healthy",
          ok: recoveredMs !== null,
          detail: recoveredMs === null ? "not healthy within 30 s" : restartMs === null ? "ok" : `ready after ${Math.round(restartMs)} ms`,
        },
        crashInvariant(s.instances),
        serverErrorInvariant(load.phases),
        ...ledgerInvariants(ledger),
      ],
      notes: [
        "No load balancer in front: the generator keeps sending every other flow to the dead instance, so its requests fail with connection errors until it is back.",
        "Outcomes go to the other instance than the decide; an outcome whose instance is dead is not acknowledged and not counted.",
      ],
    };
  } finally {
    await load?.stop();
  }
}

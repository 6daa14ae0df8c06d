import type pg from "pg";
import { restoreControllerState, type TControllerState } from "../../../router-core/index";
import { controllerKey, type TTickResult } from "./compute-shares";

/** Instances reload traffic_share when this fires (payload: the operation keys that moved). */
export const SHARES_CHANNEL = "switchyard_shares";

const SAMPLE_RETENTION_DAYS = 14;
const BUCKET_RETENTION_HOURS = 48;

/** The stored controller states, by controllerKey; a state that no longer restores is skipped. */
export async function loadControllerStates(c: pg.Client, log: (line: string) => void): Promise<Map<string, TControllerState>> {
  const { rows } = await c.query<{ operation_key: string; region: string; state: unknown }>("select operation_key, region, state from controller_state");
  const out = new Map<string, TControllerState>();
  for (const r of rows) {
    try {
      out.set(controllerKey(r.operation_key, r.region), restoreControllerState(r.state));
    } catch (err) {
      log(`controller state for ${r.operation_key}/${r.region} ignored: ${(err as Error).message}`);
    }
  }
  return out;
}

/** One tick's results as the jsonb_to_recordset rows of each table. */
function tickRows(results: readonly TTickResult[]) {
  const shareRows = results.flatMap((r) =>
    Object.entries(r.shares).map(([provider, share]) => ({ o: r.operation, r: r.region, p: provider, s: share, v: r.policyVersion })),
  );
  const samples = results.map((r) => ({ o: r.operation, r: r.region, shares: r.shares }));
  const events = results.flatMap((r) =>
    r.events.map((e) => ({
      at: e.at,
      o: r.operation,
      r: r.region,
      type: e.type,
      provider: e.provider,
      lf: e.leader.from,
      lt: e.leader.to,
      sf: e.shares.from,
      st: e.shares.to,
      capped: e.capped,
      detail: e.detail,
      evidence: e.evidence,
      v: r.policyVersion,
    })),
  );
  const controllerRows = results.map((r) => ({ o: r.operation, r: r.region, state: r.state }));
  return { shareRows, samples, events, controllerRows };
}

/**
 * Writes a tick in one transaction on the leader's session: the shares, a sample for the chart,
 * the shift events and the controller states, then NOTIFYs SHARES_CHANNEL. `prune` also drops
 * samples and metric buckets past their retention.
 */
export async function persistTick(c: pg.Client, at: number, results: readonly TTickResult[], instanceId: string, prune: boolean): Promise<void> {
  const { shareRows, samples, events, controllerRows } = tickRows(results);
  await c.query("begin");
  try {
    await c.query(
      `insert into traffic_share (operation_key, region, provider_key, share, policy_version, updated_at)
       select x.o, x.r, x.p, x.s, x.v, to_timestamp($2 / 1000.0) from jsonb_to_recordset($1::jsonb) as x(o text, r text, p text, s float8, v text)
       on conflict (operation_key, region, provider_key) do update
         set share = excluded.share, policy_version = excluded.policy_version, updated_at = excluded.updated_at`,
      [JSON.stringify(shareRows), at],
    );
    // Providers dropped from an (operation, region) no longer hold a share there.
    await c.query(
      `delete from traffic_share t where exists (select 1 from jsonb_to_recordset($1::jsonb) as x(o text, r text) where x.o = t.operation_key and x.r = t.region)
         and t.updated_at < to_timestamp($2 / 1000.0)`,
      [JSON.stringify(samples.map((s) => ({ o: s.o, r: s.r }))), at],
    );
    await c.query(
      `insert into traffic_share_sample (operation_key, region, at, shares)
       select x.o, x.r, to_timestamp($2 / 1000.0), x.shares from jsonb_to_recordset($1::jsonb) as x(o text, r text, shares jsonb)`,
      [JSON.stringify(samples), at],
    );
    if (events.length > 0) {
      await c.query(
        `insert into shift_event (at, operation_key, region, type, provider_key, leader_from, leader_to, shares_from, shares_to, capped, detail, evidence, policy_version)
         select to_timestamp(x.at / 1000.0), x.o, x.r, x.type, x.provider, x.lf, x.lt, x.sf, x.st, x.capped, x.detail, x.evidence, x.v
         from jsonb_to_recordset($1::jsonb) as x(at bigint, o text, r text, type text, provider text, lf text, lt text, sf jsonb, st jsonb,
           capped boolean, detail text, evidence jsonb, v text)`,
        [JSON.stringify(events)],
      );
    }
    await c.query(
      `insert into controller_state (operation_key, region, state, instance_id, updated_at)
       select x.o, x.r, x.state, $2, to_timestamp($3 / 1000.0) from jsonb_to_recordset($1::jsonb) as x(o text, r text, state jsonb)
       on conflict (operation_key, region) do update set state = excluded.state, instance_id = excluded.instance_id, updated_at = excluded.updated_at`,
      [JSON.stringify(controllerRows), instanceId, at],
    );
    if (prune) {
      await c.query(`delete from traffic_share_sample where at < now() - interval '${SAMPLE_RETENTION_DAYS} days'`);
      await c.query(`delete from metric_bucket where bucket_start < now() - interval '${BUCKET_RETENTION_HOURS} hours'`);
    }
    await c.query("select pg_notify($1, $2)", [SHARES_CHANNEL, JSON.stringify([...new Set(results.map((r) => r.operation))])]);
    await c.query("commit");
  } catch (err) {
    await c.query("rollback").catch(() => {});
    throw err;
  }
}

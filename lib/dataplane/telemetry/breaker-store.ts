import type pg from "pg";
import type { TCircuitBreakerState } from "../../../router-core/index";

export const BREAKER_CHANNEL = "switchyard_breakers";

const PUSH_SQL = `
  with up as (
    insert into breaker_state (provider_key, region, state, since_ms, opened_at_ms, instance_id, updated_at)
    values ($1, $2, $3::jsonb, $4, $5, $6, now())
    on conflict (provider_key, region) do update set
      state = excluded.state, since_ms = excluded.since_ms, instance_id = excluded.instance_id, updated_at = now(),
      probe_claims = case when breaker_state.opened_at_ms is distinct from excluded.opened_at_ms then 0 else breaker_state.probe_claims end,
      probe_successes = case when breaker_state.opened_at_ms is distinct from excluded.opened_at_ms then 0 else breaker_state.probe_successes end,
      probe_claimed_at = case when breaker_state.opened_at_ms is distinct from excluded.opened_at_ms then null else breaker_state.probe_claimed_at end,
      opened_at_ms = excluded.opened_at_ms
    where breaker_state.since_ms < excluded.since_ms
    returning provider_key, region
  )
  select pg_notify('${BREAKER_CHANNEL}', provider_key || '|' || region) from up`;

// Claims lapse after the open time, as the machine frees a half-open breaker's slots when its probes look lost.
const CLAIM_SQL = `
  update breaker_state set
    probe_claims = case when probe_claimed_at < now() - make_interval(secs => $4) then 1 else probe_claims + 1 end,
    probe_claimed_at = now()
  where provider_key = $1 and region = $2 and opened_at_ms = $3
    and (probe_claims < $5 or probe_claimed_at < now() - make_interval(secs => $4))
  returning probe_claims`;

const SUCCESS_SQL = `
  update breaker_state set probe_successes = probe_successes + 1
  where provider_key = $1 and region = $2 and opened_at_ms = $3
  returning probe_successes`;

export type TBreakerRow = { provider_key: string; region: string; state: unknown; updated_ms: string };

/** Writes a breaker's state if its transition is later than the row's, notifying the other instances. */
export async function pushBreakerState(pool: pg.Pool, b: { provider: string; region: string; state: TCircuitBreakerState }, instanceId: string): Promise<void> {
  const s = b.state;
  await pool.query(PUSH_SQL, [b.provider, b.region, JSON.stringify(s), s.since, s.openedAt, instanceId]);
}

/** Rows changed at or after `fromMs` (database clock), oldest first. */
export async function pullBreakerStates(pool: pg.Pool, fromMs: number): Promise<TBreakerRow[]> {
  const { rows } = await pool.query<TBreakerRow>(
    `select provider_key, region, state, (extract(epoch from updated_at) * 1000)::bigint::text as updated_ms
     from breaker_state where updated_at >= to_timestamp($1 / 1000.0) order by updated_at`,
    [fromMs],
  );
  return rows;
}

/** Takes one probe slot of an opening from the cluster's budget; false when it is spent. */
export async function claimProbeSlot(
  pool: pg.Pool,
  b: { provider: string; region: string; openedAt: number },
  config: { open_seconds: number; half_open_probes: number },
): Promise<boolean> {
  const { rows } = await pool.query(CLAIM_SQL, [b.provider, b.region, b.openedAt, config.open_seconds, config.half_open_probes]);
  return rows.length > 0;
}

/** Adds one probe success to an opening's cluster-wide count; the new count, or null when the row has moved on. */
export async function countProbeSuccess(pool: pg.Pool, b: { provider: string; region: string; openedAt: number }): Promise<number | null> {
  const { rows } = await pool.query<{ probe_successes: number }>(SUCCESS_SQL, [b.provider, b.region, b.openedAt]);
  return rows[0]?.probe_successes ?? null;
}

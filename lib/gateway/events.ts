import type pg from "pg";

/**
 * Budget breaches are routing events like the controller's shift events: one shift_event row
 * (type = the breach kind) with the evidence, so the console's event list and chart marks show
 * them beside traffic moves. At most one per (operation, region, kind) per minute: a breach lasts
 * and every refused request would otherwise add a row.
 */
export function createEventRecorder(pool: pg.Pool, log: (line: string) => void, now: () => number, track: (p: Promise<unknown>) => void = () => {}) {
  const last = new Map<string, number>();
  return {
    record(e: {
      operation: string;
      region: string;
      type: string;
      provider: string | null;
      detail: string;
      evidence: unknown;
      policyVersion: string | null;
    }): void {
      const key = `${e.operation}\u001f${e.region}\u001f${e.type}`;
      const t = now();
      const prev = last.get(key);
      if (prev !== undefined && t - prev < 60_000) return;
      last.set(key, t);
      const write = pool
        .query(
          `insert into shift_event (at, operation_key, region, type, provider_key, leader_from, leader_to, shares_from, shares_to, capped, detail, evidence, policy_version)
           values ($1, $2, $3, $4, $5, null, null, '{}'::jsonb, '{}'::jsonb, false, $6, $7::jsonb, $8)`,
          [new Date(t), e.operation, e.region, e.type, e.provider, e.detail, JSON.stringify(e.evidence), e.policyVersion],
        )
        .catch((err: unknown) => {
          last.delete(key);
          log(`gateway: could not record ${e.type} event for ${e.operation}: ${(err as Error).message}`);
        });
      track(write);
    },
  };
}

export type EventRecorder = ReturnType<typeof createEventRecorder>;

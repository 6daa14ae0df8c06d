import pg from "pg";
import type { TAcknowledgedOutcome } from "./load";

export type TLedgerCheck = {
  acknowledgedDecisions: number;
  missingDecisions: number;
  /** A few missing ids, for the report. */
  missingDecisionSample: string[];
  acknowledgedOutcomes: number;
  missingOutcomes: number;
  missingOutcomeSample: string[];
};

/**
 * Every decision answered 200 must be a row of the decision table, and every outcome answered
 * 201/202 a provider_call_outcome row of its decision and provider. Run once the instances' spools are empty.
 */
export async function checkLedger(databaseUrl: string, decisionIds: readonly string[], outcomes: readonly TAcknowledgedOutcome[]): Promise<TLedgerCheck> {
  const client = new pg.Client({ connectionString: databaseUrl });
  await client.connect();
  try {
    const decisions = (
      await client.query<{ id: string }>(
        "select a.id::text as id from unnest($1::uuid[]) a(id) where not exists (select 1 from decision d where d.id = a.id)",
        [decisionIds],
      )
    ).rows.map((r) => r.id);
    const missingOutcomes = (
      await client.query<{ id: string; provider: string }>(
        `select a.id, a.provider from unnest($1::text[], $2::text[]) a(id, provider)
          where not exists (select 1 from provider_call_outcome o where o.decision_id = a.id and o.provider_key = a.provider)`,
        [outcomes.map((o) => o.decisionId), outcomes.map((o) => o.provider)],
      )
    ).rows.map((r) => `${r.id}/${r.provider}`);
    return {
      acknowledgedDecisions: decisionIds.length,
      missingDecisions: decisions.length,
      missingDecisionSample: decisions.slice(0, 5),
      acknowledgedOutcomes: outcomes.length,
      missingOutcomes: missingOutcomes.length,
      missingOutcomeSample: missingOutcomes.slice(0, 5),
    };
  } finally {
    await client.end();
  }
}

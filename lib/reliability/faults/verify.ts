import pg from "pg";

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
 * 201/202 a provider_call_outcome row of its decision. Run once the instances' spools are empty.
 */
export async function checkLedger(databaseUrl: string, decisionIds: readonly string[], outcomeDecisionIds: readonly string[]): Promise<TLedgerCheck> {
  const client = new pg.Client({ connectionString: databaseUrl });
  await client.connect();
  try {
    const missing = async (sql: string, ids: readonly string[]) =>
      (await client.query<{ id: string }>(sql, [ids])).rows.map((r) => r.id);
    const decisions = await missing(
      "select a.id::text as id from unnest($1::uuid[]) a(id) where not exists (select 1 from decision d where d.id = a.id)",
      decisionIds,
    );
    const outcomes = await missing(
      "select a.id as id from unnest($1::text[]) a(id) where not exists (select 1 from provider_call_outcome o where o.decision_id = a.id)",
      outcomeDecisionIds,
    );
    return {
      acknowledgedDecisions: decisionIds.length,
      missingDecisions: decisions.length,
      missingDecisionSample: decisions.slice(0, 5),
      acknowledgedOutcomes: outcomeDecisionIds.length,
      missingOutcomes: outcomes.length,
      missingOutcomeSample: outcomes.slice(0, 5),
    };
  } finally {
    await client.end();
  }
}

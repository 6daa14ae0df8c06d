import { parseBuckets, quantileBetween, sampleValue } from "../lib/prometheus-text";

/**
 * The server's decision-log histograms (/api/v1/metrics): each decision's wait until its record is
 * durable, and each group-commit transaction. Scraped before and after a phase, they split the
 * phase's latency into the time spent waiting for the commit and the rest.
 */
const WAIT = "switchyard_decision_log_wait_seconds";
const COMMIT = "switchyard_decision_log_commit_seconds";
/** The event loop's delay (p99, max) in the server's last complete 10-second window, ms. */
const LOOP = "switchyard_event_loop_delay_seconds";
/** loopP99, loopMax in seconds. */
export type TCommitScrape = { wait: Map<number, number>; commit: Map<number, number>; loopP99: number | null; loopMax: number | null };
export type TCommitPhase = {
  transactions: number;
  rows: number;
  waitP50: number | null;
  waitP99: number | null;
  commitP50: number | null;
  commitP99: number | null;
  loopP99: number | null;
  loopMax: number | null;
};

/** Seconds as milliseconds with one decimal. */
const ms = (v: number | null) => (v === null ? null : Math.round(v * 10_000) / 10);

export async function scrapeCommit(port: number, headers: Record<string, string>): Promise<TCommitScrape> {
  const res = await fetch(`http://127.0.0.1:${port}/api/v1/metrics`, { headers });
  const text = await res.text();
  return {
    wait: parseBuckets(text, WAIT),
    commit: parseBuckets(text, COMMIT),
    loopP99: sampleValue(text, `${LOOP}{quantile="0.99"}`),
    loopMax: sampleValue(text, `${LOOP}{quantile="1"}`),
  };
}

export function commitBetween(a: TCommitScrape, b: TCommitScrape): TCommitPhase {
  return {
    transactions: (b.commit.get(Infinity) ?? 0) - (a.commit.get(Infinity) ?? 0),
    rows: (b.wait.get(Infinity) ?? 0) - (a.wait.get(Infinity) ?? 0),
    waitP50: ms(quantileBetween(a.wait, b.wait, 0.5)),
    waitP99: ms(quantileBetween(a.wait, b.wait, 0.99)),
    commitP50: ms(quantileBetween(a.commit, b.commit, 0.5)),
    commitP99: ms(quantileBetween(a.commit, b.commit, 0.99)),
    loopP99: ms(b.loopP99),
    loopMax: ms(b.loopMax),
  };
}

export const describeCommit = (c: TCommitPhase) =>
  `p50 ${c.waitP50 ?? "–"} ms, p99 ${c.waitP99 ?? "–"} ms until committed (${c.transactions} transactions of ${c.transactions > 0 ? (c.rows / c.transactions).toFixed(1) : "–"} rows on average: p50 ${c.commitP50 ?? "–"} ms, p99 ${c.commitP99 ?? "–"} ms; from the server's histograms)` +
  `\n  event loop     delay p99 ${c.loopP99 ?? "–"} ms, max ${c.loopMax ?? "–"} ms (the server's last complete 10 s window)`;

export const commitFigures = (phase: string, c: TCommitPhase) =>
  c.waitP99 === null
    ? []
    : [
        { label: `${phase}: wait until durable p50 (server histogram)`, value: c.waitP50 ?? 0, unit: "ms" },
        { label: `${phase}: wait until durable p99 (server histogram)`, value: c.waitP99, unit: "ms" },
        { label: `${phase}: group-commit transaction p99`, value: c.commitP99 ?? 0, unit: "ms" },
      ];

import { z } from "zod";
import { type TAuthenticator, sendJson, sendText, registerEndpoint, type TRouteHandler } from "../edge";
import type { RoutingState } from "./routing-state";
import { eventLoopDelay, startEventLoopDelayMonitor } from "./event-loop-delay";
import { decisionCounts, outcomeCounts } from "./metrics/counters";
import type { TLatencyHistogram } from "./metrics/latency-histogram";
import { familyLines } from "./metrics/prometheus";

registerEndpoint({
  method: "get",
  path: "/api/v1/metrics",
  summary: "Prometheus metrics of this instance",
  description:
    "Text exposition format 0.0.4. Counters are per instance since its start (decisions by operation, region, provider and " +
    "reason; outcomes by type, provider and result); gauges give the current traffic shares, breaker states, queue depths, " +
    "the controller leader flag and tick age, the decision and outcome spools' bytes, each quota's limit and this instance's " +
    "spend in its window, the metric refresh age and the event loop's delay. Needs a key with the metrics " +
    "scope (a scraper's: Prometheus `authorization: {credentials: …}`); keyless only in the embedded demo.",
  tags: ["operations"],
  authenticated: true,
  responses: { 200: { description: "Metrics", schema: z.string(), contentType: "text/plain; version=0.0.4" } },
});

export type TQuotaUsage = { provider: string; unit: string; windowSeconds: number; limit: number; spent: number };

export type TDecisionLogLatency = { commitSeconds: TLatencyHistogram; waitSeconds: TLatencyHistogram };

export type TMetricsSources = {
  state: RoutingState;
  now?: () => number;
  decisionLogQueueDepth?: () => number;
  decisionLogLatency?: () => TDecisionLogLatency;
  outcomeQueueDepth: () => number;
  outcomeSpoolBytes: () => number;
  /** Bytes of decisions in this instance's local spool (written while Postgres was unreachable, not yet replayed). */
  decisionLogSpoolBytes?: () => number;
  /** Each catalogued call or token quota's current window: its limit and this instance's spend in it. */
  quotas?: () => TQuotaUsage[];
  breakers: () => Array<{ provider: string; region: string; state: string; openedAt?: number | null }>;
  /** Whether breaker state is shared through Postgres (false: this instance's own view while Postgres is unreachable). */
  breakersShared?: () => boolean;
  controller: () => { leader: boolean; lastTickAt: number | null; sharesWrittenAt: number | null };
  metricsRefreshedAt: () => number | null;
  configNotices: () => number;
  /** Execute mode's degradation queue, once the gateway runs: its depth and whether it is in Postgres. */
  executeQueue?: () => { depth: number; durable: boolean } | null;
};

function escapeLabel(v: string): string {
  return v.replace(/\\/g, "\\\\").replace(/"/g, '\\"').replace(/\n/g, "\\n");
}

function labels(names: readonly string[], values: readonly string[]): string {
  return `{${names.map((n, i) => `${n}="${escapeLabel(values[i] ?? "")}"`).join(",")}}`;
}

function num(v: number | null): string {
  return v === null || !Number.isFinite(v) ? "NaN" : String(v);
}

type TFamily = (name: string, type: "counter" | "gauge" | "summary", help: string, lines: string[]) => void;

/** Limit and spend per quota window: the cluster's spend is the sum over instances, as every instance spends its own leased blocks. */
function renderQuotas(src: TMetricsSources, family: TFamily): void {
  if (!src.quotas) return;
  const usage = src.quotas().sort((a, b) => `${a.provider}|${a.unit}|${a.windowSeconds}`.localeCompare(`${b.provider}|${b.unit}|${b.windowSeconds}`));
  const names = ["provider", "unit", "window_seconds"];
  const lbl = (q: TQuotaUsage) => labels(names, [q.provider, q.unit, String(q.windowSeconds)]);
  family(
    "switchyard_quota_limit",
    "gauge",
    "A provider's catalogued quota per window (unit requests or tokens).",
    usage.map((q) => `switchyard_quota_limit${lbl(q)} ${q.limit}`),
  );
  family(
    "switchyard_quota_spent",
    "gauge",
    "What this instance spent of the quota in the current window; sum over instances for the cluster's.",
    usage.map((q) => `switchyard_quota_spent${lbl(q)} ${q.spent}`),
  );
}

/** Renders the exposition text; one HELP/TYPE header per family, series sorted for stable diffs. */
export function renderMetrics(src: TMetricsSources): string {
  const now = (src.now ?? Date.now)();
  const out: string[] = [];
  const family = (name: string, type: "counter" | "gauge" | "summary", help: string, lines: string[]) => {
    out.push(...familyLines(name, type, help, lines));
  };
  const ageSeconds = (at: number | null) => (at === null ? null : Math.max(0, (now - at) / 1000));

  family(
    "switchyard_decisions_total",
    "counter",
    "Decisions answered by this instance.",
    decisionCounts().map((s) => `switchyard_decisions_total${labels(["operation", "region", "provider", "reason"], s.labels)} ${s.value}`),
  );
  family(
    "switchyard_outcomes_total",
    "counter",
    "Outcomes received, by type, provider and result (recorded, spooled, invalid, unknown_decision).",
    outcomeCounts().map((s) => `switchyard_outcomes_total${labels(["type", "provider", "result"], s.labels)} ${s.value}`),
  );
  const shares: string[] = [];
  for (const operation of src.state.operations()) {
    for (const view of src.state.regionViews(operation).sort((a, b) => a.region.localeCompare(b.region))) {
      for (const [provider, share] of Object.entries(view.shares ?? {}).sort(([a], [b]) => a.localeCompare(b))) {
        shares.push(`switchyard_traffic_share${labels(["operation", "region", "provider"], [operation, view.region, provider])} ${share}`);
      }
    }
  }
  family("switchyard_traffic_share", "gauge", "Current traffic share per operation, region and provider (controller output).", shares);
  const breakerLines: string[] = [];
  for (const b of src.breakers().sort((x, y) => `${x.provider}|${x.region}`.localeCompare(`${y.provider}|${y.region}`))) {
    for (const s of ["closed", "open", "half_open"]) {
      breakerLines.push(`switchyard_breaker_state${labels(["provider", "region", "state"], [b.provider, b.region, s])} ${b.state === s ? 1 : 0}`);
    }
  }
  family("switchyard_breaker_state", "gauge", "Circuit breaker state on this instance (1 for the current state).", breakerLines);
  const openedLines = src
    .breakers()
    .filter((b) => b.openedAt !== undefined)
    .map(
      (b) => `switchyard_breaker_opened_at_seconds${labels(["provider", "region"], [b.provider, b.region])} ${b.openedAt === null ? 0 : b.openedAt! / 1000}`,
    );
  family("switchyard_breaker_opened_at_seconds", "gauge", "When the breaker's current opening began (Unix seconds; 0 when closed).", openedLines);
  if (src.breakersShared) {
    family("switchyard_breakers_shared", "gauge", "1 while breaker state is shared with the cluster through Postgres, 0 while this instance runs on its own.", [
      `switchyard_breakers_shared ${src.breakersShared() ? 1 : 0}`,
    ]);
  }
  const queue = src.executeQueue?.() ?? null;
  if (queue) {
    family(
      "switchyard_execute_queue_durable",
      "gauge",
      "1 while execute mode queues in Postgres (any instance runs and answers a job), 0 while this instance queues in memory.",
      [`switchyard_execute_queue_durable ${queue.durable ? 1 : 0}`],
    );
    family(
      "switchyard_execute_queue_depth",
      "gauge",
      "Queued execute jobs not yet answered, cluster-wide as of the last pass, plus this instance's in memory.",
      [`switchyard_execute_queue_depth ${queue.depth}`],
    );
  }
  family("switchyard_decision_log_queue_depth", "gauge", "Decision records waiting for the group commit.", [
    `switchyard_decision_log_queue_depth ${num(src.decisionLogQueueDepth?.() ?? null)}`,
  ]);
  const latency = src.decisionLogLatency?.();
  if (latency) {
    out.push(
      ...latency.commitSeconds.render("switchyard_decision_log_commit_seconds", "Duration of each group-commit transaction of decision records."),
      ...latency.waitSeconds.render(
        "switchyard_decision_log_wait_seconds",
        "Per decision, the time from submit until its record is durable (committed, or spooled while Postgres is unreachable); with sync durability, what decide waits for.",
      ),
    );
  }
  if (src.decisionLogSpoolBytes) {
    family("switchyard_decision_log_spool_bytes", "gauge", "Bytes of decisions spooled on disk while Postgres was unreachable and not yet replayed.", [
      `switchyard_decision_log_spool_bytes ${src.decisionLogSpoolBytes()}`,
    ]);
  }
  renderQuotas(src, family);
  family("switchyard_outcome_queue_depth", "gauge", "Outcomes waiting for the group commit.", [`switchyard_outcome_queue_depth ${src.outcomeQueueDepth()}`]);
  family("switchyard_outcome_spool_bytes", "gauge", "Bytes of outcomes spooled on disk while Postgres was unreachable.", [
    `switchyard_outcome_spool_bytes ${src.outcomeSpoolBytes()}`,
  ]);
  const c = src.controller();
  family("switchyard_controller_leader", "gauge", "1 when this instance runs the traffic-share controller.", [
    `switchyard_controller_leader ${c.leader ? 1 : 0}`,
  ]);
  family("switchyard_controller_last_tick_age_seconds", "gauge", "Seconds since this instance's last controller tick (NaN: never).", [
    `switchyard_controller_last_tick_age_seconds ${num(ageSeconds(c.lastTickAt))}`,
  ]);
  family("switchyard_shares_age_seconds", "gauge", "Seconds since the controller leader (any instance) last wrote shares, as this instance read them.", [
    `switchyard_shares_age_seconds ${num(ageSeconds(c.sharesWrittenAt))}`,
  ]);
  family("switchyard_metrics_refresh_age_seconds", "gauge", "Seconds since the merged metric window was last read from Postgres.", [
    `switchyard_metrics_refresh_age_seconds ${num(ageSeconds(src.metricsRefreshedAt()))}`,
  ]);
  const lag = eventLoopDelay();
  // A summary (quantiles of a sliding window) without _sum and _count: a gauge may not carry a quantile label.
  family(
    "switchyard_event_loop_delay_seconds",
    "summary",
    "How late this instance's event loop ran in the last complete 10 s window (p50, p99, max; NaN before the first window).",
    (["0.5", "0.99", "1"] as const).map((q, i) => {
      const v = lag === null ? null : [lag.p50, lag.p99, lag.max][i]! / 1000;
      return `switchyard_event_loop_delay_seconds{quantile="${q}"} ${num(v)}`;
    }),
  );
  family("switchyard_config_notices_total", "counter", "Config and share notices received over LISTEN/NOTIFY.", [
    `switchyard_config_notices_total ${src.configNotices()}`,
  ]);
  return `${out.join("\n")}\n`;
}

/** The metrics name every operation, provider and breaker: only for a key with the metrics scope. */
export function createMetricsHandler(src: TMetricsSources, authenticate: TAuthenticator): TRouteHandler {
  startEventLoopDelayMonitor();
  return async (req, res) => {
    const auth = await authenticate(req, "metrics");
    if (!auth.ok) {
      sendJson(res, auth.status, auth.body, auth.headers);
      return;
    }
    sendText(res, 200, renderMetrics(src), "text/plain; version=0.0.4; charset=utf-8");
  };
}

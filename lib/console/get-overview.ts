import "server-only";
import { getActivePolicy } from "./factor-lists/get-active-policy";
import { getProviderHealth } from "./providers/get-provider-health";
import { getServedSeries } from "./traffic/get-served-series";
import { getShareSeries } from "./traffic/get-share-series";
import { getPrisma } from "@/lib/db";
import { listIncidents, listIncidentSpans } from "@/lib/incidents/index";
import { listActiveOverrides } from "./providers/list-active-overrides";
import { listChartMarks } from "./traffic/list-chart-marks";
import { listOverrideBands } from "./traffic/list-override-bands";
import { listShiftEvents } from "./why/list-shift-events";
import type { TRangeKey } from "./ranges";
import type { TOverview, TProviderHealth, TServedSeries } from "./types";

/**
 * Health rows of the providers that serve the operation here, each with its served share over the
 * metric window: those its factor list names; when it names none, those with a planned share or
 * served decisions (every row when none has yet: a new operation).
 */
function servingHealth(health: TProviderHealth[], served: TServedSeries, listed: string[], windowMinutes: number, now: number): TProviderHealth[] {
  const since = now - windowMinutes * 60_000 - served.bucketSeconds * 1000;
  const counts: Record<string, number> = {};
  let total = 0;
  for (const p of served.points) {
    if (p.t < since) continue;
    total += p.served;
    for (const [provider, n] of Object.entries(p.counts)) counts[provider] = (counts[provider] ?? 0) + n;
  }
  const rows = health.map((h) => ({ ...h, servedShare: total > 0 ? (counts[h.provider] ?? 0) / total : null }));
  if (listed.length > 0) return rows.filter((h) => listed.includes(h.provider));
  const serving = rows.filter((h) => (h.share ?? 0) > 0 || (counts[h.provider] ?? 0) > 0 || served.providers.includes(h.provider));
  return serving.length > 0 ? serving : rows;
}

/** Everything the overview shows for one (operation, region) and range, read in parallel. */
export async function getOverview(operation: string, region: string, range: TRangeKey, now = Date.now()): Promise<TOverview> {
  const [policy, series, served] = await Promise.all([
    getActivePolicy(operation),
    getShareSeries(operation, region, range, now),
    getServedSeries(operation, region, range, now),
  ]);
  const [marks, health, overrides, shifts, bands, spans, open] = await Promise.all([
    listChartMarks(operation, region, series.from, now, [...new Set([...policy.providers, ...series.providers, ...served.providers])]),
    getProviderHealth({ operation, region, windowMinutes: policy.windowMinutes, minSampleSize: policy.minSampleSize, now }),
    listActiveOverrides({ operation, at: now }),
    listShiftEvents({ operation, region, significantOnly: true, limit: 12 }),
    listOverrideBands(operation, region, series.from, now),
    listIncidentSpans(getPrisma(), operation, region, series.from, now),
    listIncidents(getPrisma(), { state: "open" }, 10),
  ]);
  return {
    operation,
    region,
    series,
    served,
    bands,
    incidents: spans.map((i) => ({
      id: i.id,
      start: i.startedAt,
      end: i.endedAt ?? Math.max(i.lastFactAt, now),
      resolved: i.endedAt !== null,
      trigger: i.causeKind,
      title: i.title,
      events: i.steps,
      losing: i.losing,
      gaining: i.gaining,
    })),
    openIncidents: open.map((i) => ({
      id: i.id,
      title: i.title,
      operation: i.operation,
      region: i.region,
      severity: i.severity,
      state: i.state,
      startedAt: i.startedAt,
      headline: i.headline,
    })),
    marks,
    health: servingHealth(health, served, policy.providers, policy.windowMinutes, now),
    overrides: overrides.filter((o) => o.region === null || o.region === region),
    shifts,
    windowMinutes: policy.windowMinutes,
    policyVersion: policy.version,
    generatedAt: now,
  };
}

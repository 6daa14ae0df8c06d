import "server-only";
import { getActivePolicy } from "./get-active-policy";
import { getProviderHealth } from "./get-provider-health";
import { getShareSeries } from "./get-share-series";
import { listActiveOverrides } from "./list-active-overrides";
import { listChartMarks } from "./list-chart-marks";
import { listShiftEvents } from "./list-shift-events";
import type { TRangeKey } from "./ranges";
import type { TOverview } from "./types";

/** Everything the overview shows for one (operation, region) and range, read in parallel. */
export async function getOverview(operation: string, region: string, range: TRangeKey, now = Date.now()): Promise<TOverview> {
  const [policy, series] = await Promise.all([getActivePolicy(operation), getShareSeries(operation, region, range, now)]);
  const [marks, health, overrides, shifts] = await Promise.all([
    listChartMarks(operation, region, series.from, now),
    getProviderHealth({ operation, region, windowMinutes: policy.windowMinutes, minSampleSize: policy.minSampleSize, now }),
    listActiveOverrides({ operation, at: now }),
    listShiftEvents({ operation, region, significantOnly: true, limit: 12 }),
  ]);
  return {
    operation,
    region,
    series,
    marks,
    health,
    overrides: overrides.filter((o) => o.region === null || o.region === region),
    shifts,
    windowMinutes: policy.windowMinutes,
    policyVersion: policy.version,
    generatedAt: now,
  };
}

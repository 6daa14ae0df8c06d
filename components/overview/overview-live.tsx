"use client";

import { useQuery } from "@tanstack/react-query";
import { useCallback, useEffect, useState } from "react";
import { OVERVIEW_COOKIE, type TRangeKey } from "@/lib/console/ranges";
import type { TChartMark, TOverview, TScope } from "@/lib/console/types";
import { Drawer } from "../drawer";
import { fetchJson } from "../fetch-json";
import { utc } from "../format";
import { MarkExplanation } from "./mark-explanation";
import { OpenIncidents } from "./open-incidents";
import { HealthAndOverrides, RecentShifts } from "./overview-tables";
import { OverviewToolbar, type TOverviewSelection } from "./overview-toolbar";
import { TrafficSharePanel } from "./traffic-share-panel";

function remember(query: string) {
  document.cookie = `${OVERVIEW_COOKIE}=${encodeURIComponent(query)}; path=/; max-age=${180 * 86_400}; samesite=lax`;
}

/**
 * The selected operation, region and range, kept in the address bar so a link or reload shows the
 * same view, and in a cookie so the nav's plain Overview link reopens it (the server reads it).
 */
function useOverviewSelection(scope: TScope, initial: TOverviewSelection) {
  const [selection, setSelection] = useState<TOverviewSelection>(initial);
  const initialQuery = new URLSearchParams(initial).toString();
  useEffect(() => {
    // The first render's selection may have come from the cookie: show it in the address bar too.
    // A selection opened by a link is remembered as well as one chosen in the toolbar.
    if (window.location.search !== `?${initialQuery}`) window.history.replaceState(null, "", `/?${initialQuery}`);
    remember(initialQuery);
  }, [initialQuery]);
  const select = (next: Partial<TOverviewSelection>) => {
    const { operation, region, range } = selection;
    const op = next.operation ?? operation;
    const opRegions = scope.operations.find((o) => o.key === op)?.regions ?? [];
    const r = next.region ?? (opRegions.includes(region) ? region : (opRegions[0] ?? region));
    const rg = next.range ?? range;
    setSelection({ operation: op, region: r, range: rg });
    const query = new URLSearchParams({ operation: op, region: r, range: rg }).toString();
    window.history.replaceState(null, "", `/?${query}`);
    remember(query);
  };
  return [selection, select] as const;
}

export function OverviewLive({ scope, initial, range: initialRange }: { scope: TScope; initial: TOverview; range: TRangeKey }) {
  const [selection, select] = useOverviewSelection(scope, { operation: initial.operation, region: initial.region, range: initialRange });
  const { operation, region, range } = selection;
  const [mark, setMark] = useState<TChartMark | null>(null);
  const closeMark = useCallback(() => setMark(null), []);
  const isInitial = operation === initial.operation && region === initial.region && range === initialRange;
  const query = useQuery({
    queryKey: ["overview", operation, region, range],
    queryFn: () => fetchJson<TOverview>(`/api/console/overview?${new URLSearchParams({ operation, region, range })}`),
    initialData: isInitial ? initial : undefined,
    initialDataUpdatedAt: isInitial ? initial.generatedAt : undefined,
  });
  const data = query.data ?? initial;
  const regions = scope.operations.find((o) => o.key === operation)?.regions ?? [];
  return (
    <div className="flex flex-col gap-4" data-testid="overview">
      <OverviewToolbar scope={scope} selection={selection} regions={regions} data={data} refreshFailed={query.isError} select={select} />
      <OpenIncidents incidents={data.openIncidents} />
      <TrafficSharePanel data={data} selection={selection} onMark={setMark} />
      <HealthAndOverrides data={data} />
      <RecentShifts data={data} operation={operation} region={region} />
      <Drawer title={mark ? `${mark.label} · ${utc(mark.at)}` : ""} open={mark !== null} onClose={closeMark}>
        {mark ? <MarkExplanation mark={mark} operation={operation} region={region} /> : null}
      </Drawer>
    </div>
  );
}

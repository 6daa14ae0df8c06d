"use client";

import { useQuery } from "@tanstack/react-query";
import type { TGatewayView } from "@/lib/console/gateway/get-gateway-view";
import { fetchJson } from "../fetch-json";
import { OperationsPanel } from "./gateway-operations";
import { AdaptersPanel, EventsPanel, GatewayHeader } from "./gateway-panels";

export function GatewayLive({ initial }: { initial: TGatewayView }) {
  const query = useQuery({ queryKey: ["gateway"], queryFn: () => fetchJson<TGatewayView>("/api/console/gateway"), initialData: initial });
  const view = query.data ?? initial;
  const { now } = view;
  const executable = view.operations.filter((o) => o.callable.length > 0 || o.configured);
  const others = view.operations.filter((o) => !executable.includes(o));

  return (
    <div className="flex flex-col gap-4" data-testid="gateway">
      <GatewayHeader view={view} refreshError={query.isError ? query.error : null} />
      <OperationsPanel executable={executable} others={others} now={now} />
      <AdaptersPanel view={view} />
      <EventsPanel view={view} />
    </div>
  );
}

import "server-only";
import { getPrisma } from "@/lib/db";
import { listIncidents, type TIncidentFilter } from "@/lib/incidents/index";
import { listScopes } from "../traffic/list-scopes";

const STATES = ["open", "resolved", "all"] as const;

/** The fleet's incident list with the filter as given (unknown values ignored) and the operations and regions to filter by. */
export async function getIncidentsPage(query: { operation?: string | null; region?: string | null; state?: string | null }) {
  const scope = await listScopes();
  const operation = scope.operations.some((o) => o.key === query.operation) ? query.operation! : null;
  const regions = [...new Set(scope.operations.flatMap((o) => o.regions))].sort();
  const region = query.region && regions.includes(query.region) ? query.region : null;
  const state = (STATES as readonly string[]).includes(query.state ?? "") ? (query.state as TIncidentFilter["state"]) : "all";
  const items = await listIncidents(getPrisma(), { operation, region, state });
  return { now: Date.now(), items, filter: { operation, region, state: state ?? "all" }, operations: scope.operations.map((o) => o.key), regions };
}

export type TIncidentsPage = Awaited<ReturnType<typeof getIncidentsPage>>;

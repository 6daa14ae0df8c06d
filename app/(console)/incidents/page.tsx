import { IncidentTable } from "@/components/incidents/incident-table";
import { getIncidentsPage } from "@/lib/console/incidents/get-incidents-page";
import { firstParam } from "@/lib/console/ranges";

export const dynamic = "force-dynamic";

export default async function IncidentsPage({ searchParams }: { searchParams: Promise<Record<string, string | string[] | undefined>> }) {
  const sp = await searchParams;
  const page = await getIncidentsPage({ operation: firstParam(sp.operation), region: firstParam(sp.region), state: firstParam(sp.state) });
  return <IncidentTable page={page} />;
}

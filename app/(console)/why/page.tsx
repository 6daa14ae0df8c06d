import { IncidentList } from "@/components/why/incident-list";
import { RegainNote } from "@/components/why/regain-note";
import { EventBlock, MomentPanel, ScopeLinks } from "@/components/why/why-parts";
import { getMoment } from "@/lib/console/why/get-moment";
import { getRegainGaps } from "@/lib/console/why/get-regain-gaps";
import { getShiftEvent } from "@/lib/console/why/get-shift-event";
import { listScopes } from "@/lib/console/traffic/list-scopes";
import { listIncidents } from "@/lib/console/incidents/list-incidents";
import { firstParam } from "@/lib/console/ranges";
import { resolveScope } from "@/lib/console/traffic/resolve-scope";
import { PageTitle } from "@/components/page-title";

export const dynamic = "force-dynamic";

export default async function WhyPage({ searchParams }: { searchParams: Promise<Record<string, string | string[] | undefined>> }) {
  const sp = await searchParams;
  const eventId = firstParam(sp.event);
  const selected = eventId ? await getShiftEvent(eventId) : null;
  const scope = await listScopes();
  const chosen = resolveScope(scope, selected?.operation ?? firstParam(sp.operation), selected?.region ?? firstParam(sp.region));
  if (!chosen) return <p className="panel muted p-4 text-sm">No operations are configured yet.</p>;
  const atParam = Number(firstParam(sp.at));
  const at = Number.isFinite(atParam) && atParam > 0 ? atParam : null;
  const [incidents, moment, gaps] = await Promise.all([
    listIncidents(chosen.operation, chosen.region),
    at !== null ? getMoment(chosen.operation, chosen.region, at) : Promise.resolve(null),
    getRegainGaps(chosen.operation, chosen.region),
  ]);
  return (
    <div className="flex flex-col gap-4">
      <PageTitle>Why traffic moved</PageTitle>
      <ScopeLinks scope={scope} chosen={chosen} />

      <RegainNote gaps={gaps} />

      {moment ? <MomentPanel moment={moment} chosen={chosen} /> : null}

      {selected ? <EventBlock e={selected} highlighted /> : null}

      <IncidentList incidents={incidents} chosen={chosen} openId={firstParam(sp.incident) ?? selected?.id} />
    </div>
  );
}

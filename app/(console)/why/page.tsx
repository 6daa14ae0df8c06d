import { RegainNote } from "@/components/why/regain-note";
import { EventBlock, MomentPanel, ScopeLinks, ShiftTimeline } from "@/components/why/why-parts";
import { getMoment } from "@/lib/console/get-moment";
import { getRegainGaps } from "@/lib/console/get-regain-gaps";
import { getShiftEvent } from "@/lib/console/get-shift-event";
import { listScopes } from "@/lib/console/list-scopes";
import { listShiftEvents } from "@/lib/console/list-shift-events";
import { firstParam } from "@/lib/console/ranges";
import { resolveScope } from "@/lib/console/resolve-scope";

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
  const [events, moment, gaps] = await Promise.all([
    listShiftEvents({ operation: chosen.operation, region: chosen.region, significantOnly: true, limit: 100 }),
    at !== null ? getMoment(chosen.operation, chosen.region, at) : Promise.resolve(null),
    getRegainGaps(chosen.operation, chosen.region),
  ]);
  return (
    <div className="flex flex-col gap-4">
      <ScopeLinks scope={scope} chosen={chosen} />

      <RegainNote gaps={gaps} />

      {moment ? <MomentPanel moment={moment} chosen={chosen} /> : null}

      {selected ? <EventBlock e={selected} highlighted /> : null}

      <ShiftTimeline events={events} chosen={chosen} selectedId={selected?.id} />
    </div>
  );
}

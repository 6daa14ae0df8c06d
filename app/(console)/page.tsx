import { DemoWelcome } from "@/components/demo/demo-welcome";
import { OverviewLive } from "@/components/overview/overview-live";
import { getOverview } from "@/lib/console/get-overview";
import { listScopes } from "@/lib/console/list-scopes";
import { firstParam, parseRange } from "@/lib/console/ranges";
import { resolveScope } from "@/lib/console/resolve-scope";

export const dynamic = "force-dynamic";

export default async function OverviewPage({ searchParams }: { searchParams: Promise<Record<string, string | string[] | undefined>> }) {
  const sp = await searchParams;
  const scope = await listScopes();
  const selected = resolveScope(scope, firstParam(sp.operation), firstParam(sp.region));
  if (!selected) {
    return <p className="panel muted p-4 text-sm">No operations are configured yet: create one and its factor list first.</p>;
  }
  const range = parseRange(sp.range);
  const initial = await getOverview(selected.operation, selected.region, range);
  return (
    <>
      <DemoWelcome />
      <OverviewLive scope={scope} initial={initial} range={range} />
    </>
  );
}

import { cookies, headers } from "next/headers";
import { DemoWelcome } from "@/components/demo/demo-welcome";
import { FirstSteps } from "@/components/catalog/first-steps";
import { publicOrigin } from "@/lib/auth/same-origin";
import { getFirstSteps } from "@/lib/catalog/get-first-steps";
import { getPrisma } from "@/lib/db/client";
import { OverviewLive } from "@/components/overview/overview-live";
import { getOverview } from "@/lib/console/get-overview";
import { listScopes } from "@/lib/console/traffic/list-scopes";
import { firstParam, OVERVIEW_COOKIE, parseOverviewCookie, parseRange } from "@/lib/console/ranges";
import { resolveScope } from "@/lib/console/traffic/resolve-scope";

export const dynamic = "force-dynamic";

export default async function OverviewPage({ searchParams }: { searchParams: Promise<Record<string, string | string[] | undefined>> }) {
  const sp = await searchParams;
  const scope = await listScopes();
  // No selection in the URL (the nav's plain link): reopen the last one this browser chose.
  const remembered = sp.operation || sp.region || sp.range ? {} : parseOverviewCookie((await cookies()).get(OVERVIEW_COOKIE)?.value);
  const selected = resolveScope(scope, firstParam(sp.operation) ?? remembered.operation, firstParam(sp.region) ?? remembered.region);
  if (!selected) {
    // An empty instance: walk the first admin from providers to the first decide.
    const first = await getFirstSteps(getPrisma());
    const origin = publicOrigin() ?? `http://${(await headers()).get("host") ?? "localhost:3000"}`;
    return <FirstSteps steps={first.steps} operation={first.operation} origin={origin} />;
  }
  const range = parseRange(sp.range ?? remembered.range);
  const initial = await getOverview(selected.operation, selected.region, range);
  return (
    <>
      <DemoWelcome />
      <OverviewLive scope={scope} initial={initial} range={range} />
    </>
  );
}

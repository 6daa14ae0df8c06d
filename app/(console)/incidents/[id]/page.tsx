import { notFound } from "next/navigation";
import { IncidentView } from "@/components/incidents/incident-view";
import { getIncidentPage } from "@/lib/console/incidents/get-incident-page";
import { overrideLimitsFromEnv } from "@/lib/controlplane/overrides/override-limits";

export const dynamic = "force-dynamic";

export default async function IncidentPage({ params }: { params: Promise<{ id: string }> }) {
  const page = await getIncidentPage((await params).id, overrideLimitsFromEnv(process.env));
  if (!page) notFound();
  return <IncidentView page={page} />;
}

import Link from "next/link";
import { isDemoMode } from "@/lib/auth/demo-mode";
import { can, getViewer } from "@/lib/console/get-viewer";
import { listChaosProviders } from "@/lib/console/providers/list-chaos-providers";
import { ChaosPanel } from "@/components/demo/chaos-panel";
import { PageTitle } from "@/components/page-title";

export const dynamic = "force-dynamic";

export default async function ChaosPage() {
  return (
    <div className="flex flex-col gap-4">
      <PageTitle>Chaos · fault injection</PageTitle>
      <ChaosBody />
    </div>
  );
}

async function ChaosBody() {
  if (!isDemoMode()) {
    return (
      <p className="panel muted p-4 text-sm" data-testid="chaos-unavailable">
        Fault injection exists only in demo mode (<span className="mono">npm start</span> without <span className="mono">DATABASE_URL</span>), where simulated
        services send the traffic.
      </p>
    );
  }
  const viewer = await getViewer();
  if (!can(viewer, "demo.chaos")) {
    return (
      <p className="panel muted p-4 text-sm" data-testid="chaos-unavailable">
        Only admins may inject faults.{" "}
        <Link href="/login?next=/chaos" className="underline">
          Sign in as Ari Admin
        </Link>{" "}
        to use the chaos panel.
      </p>
    );
  }
  return <ChaosPanel providers={await listChaosProviders()} />;
}

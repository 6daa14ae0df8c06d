import { GatewayLive } from "@/components/gateway/gateway-live";
import { getGatewayView } from "@/lib/console/gateway/get-gateway-view";

export const dynamic = "force-dynamic";

export default async function GatewayPage() {
  return <GatewayLive initial={await getGatewayView()} />;
}

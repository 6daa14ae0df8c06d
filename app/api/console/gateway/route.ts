import { z } from "zod";
import { consoleRoute } from "@/lib/console/console-route";
import { getGatewayView } from "@/lib/console/gateway/get-gateway-view";

export const GET = consoleRoute(z.object({}), () => getGatewayView());

import { readJson, withPermission } from "@/lib/auth/with-permission";
import { putGatewayLimits } from "@/lib/catalog/put-gateway-limits";
import { ZGatewayLimits } from "@/lib/catalog/schemas";
import { parseInput } from "@/lib/errors/api-errors";

export const PUT = withPermission("catalog.edit", async ({ req, prisma, actor, params }) =>
  Response.json(await putGatewayLimits(prisma, actor, params.key ?? "", parseInput(ZGatewayLimits, await readJson(req)))),
);

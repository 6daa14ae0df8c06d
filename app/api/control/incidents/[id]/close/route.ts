import { readJson, withPermission } from "@/lib/auth/with-permission";
import { closeIncident, ZCloseIncidentBody } from "@/lib/incidents/index";
import { parseInput } from "@/lib/errors/api-errors";

// Closing an incident is on-call's call, of the same weight as ending an override.
export const POST = withPermission("override.end", async ({ req, prisma, actor, params }) => {
  const { reason } = parseInput(ZCloseIncidentBody, await readJson(req));
  return Response.json({ incident: await closeIncident(prisma, actor, params.id ?? "", reason) });
});

import { queryOf, readJson, withPermission } from "@/lib/auth/with-permission";
import { ZCreateOverrideBody, createOverride } from "@/lib/controlplane/overrides/create-override";
import { overrideLimitsFromEnv } from "@/lib/controlplane/overrides/override-limits";
import { parseInput } from "@/lib/errors/api-errors";
import { ZListOverridesQuery, listOverrides } from "@/lib/controlplane/overrides/list-overrides";

export const GET = withPermission("override.read", async ({ req, prisma }) => {
  return Response.json({ overrides: await listOverrides(prisma, parseInput(ZListOverridesQuery, queryOf(req))) });
});

export const POST = withPermission("override.create", async ({ req, prisma, actor }) => {
  const body = parseInput(ZCreateOverrideBody, await readJson(req));
  return Response.json({ override: await createOverride(prisma, actor, body, new Date(), overrideLimitsFromEnv(process.env)) }, { status: 201 });
});

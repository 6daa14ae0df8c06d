import { readJson, withPermission } from "@/lib/auth/with-permission";
import { ZCreateApiKeyBody, createApiKey } from "@/lib/controlplane/api-keys/create-api-key";
import { parseInput } from "@/lib/errors/api-errors";
import { listApiKeys } from "@/lib/controlplane/api-keys/list-api-keys";

export const GET = withPermission("api_key.read", async ({ prisma }) => {
  return Response.json({ apiKeys: await listApiKeys(prisma) });
});

/** The response is the only time the key is ever shown. */
export const POST = withPermission("api_key.create", async ({ req, prisma, actor }) => {
  const body = parseInput(ZCreateApiKeyBody, await readJson(req));
  return Response.json(await createApiKey(prisma, actor, body), { status: 201, headers: { "cache-control": "no-store" } });
});

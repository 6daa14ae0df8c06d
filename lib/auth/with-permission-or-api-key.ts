import { getPrisma } from "../db";
import { resolveKeyOwner } from "./api-key-owner";
import { clientIpOf } from "./client-ip";
import type { TApiKeyScope } from "./api-key-scopes";
import type { TPermission } from "./permissions";
import { registerHandler } from "./route-registry";
import { verifyApiKey } from "./verify-api-key";
import { refusal, refusalResponse, withPermission, type TRouteContext } from "./with-permission";

/**
 * A control-plane route that a script may also call with an API key holding `scope` (the CLI's
 * `switchyard apply` / `export`). With `Authorization: Bearer sy_…` the key is checked instead of
 * a session; a browser never sends that header on its own, so the same-origin check does not
 * apply to it. The change is recorded as the key's, on behalf of the admin who created it, so
 * four-eyes counts that admin as its author, and the key may do only what that person may do
 * now (api-key-owner.ts). Without the header it is withPermission.
 */
export function withPermissionOrApiKey(permission: TPermission, scope: TApiKeyScope, handler: (ctx: TRouteContext) => Promise<Response>) {
  const sessionRoute = withPermission(permission, handler);
  const route = async (req: Request, nextCtx: Parameters<typeof sessionRoute>[1]): Promise<Response> => {
    const auth = req.headers.get("authorization");
    if (!auth?.toLowerCase().startsWith("bearer ")) return sessionRoute(req, nextCtx);
    const prisma = getPrisma();
    const verified = await verifyApiKey(prisma, auth.slice(7).trim(), scope);
    if (!verified.ok) return refusal(verified.status === 401 ? "unauthenticated" : verified.status === 403 ? "forbidden" : "auth_unavailable", verified.reason);
    const owned = await resolveKeyOwner(prisma, verified.principal.apiKeyId, permission);
    if (!owned.ok) return refusal(owned.code, owned.reason);
    const actor = { userId: owned.owner.userId, label: `api_key:${verified.principal.prefix}`, ip: clientIpOf(req.headers) };
    const principal: TRouteContext["principal"] = {
      kind: "user",
      userId: owned.owner.userId,
      email: actor.label,
      name: verified.principal.name,
      roles: owned.owner.roles,
      sessionId: "",
    };
    try {
      return await handler({ req, prisma, principal, actor, params: {} });
    } catch (err) {
      const refused = refusalResponse(err);
      if (refused) return refused;
      throw err;
    }
  };
  registerHandler(route, permission, "route");
  return route;
}

import "server-only";
import { z } from "zod";
import type { TUserPrincipal } from "@/lib/auth/session";
import { withPermission } from "@/lib/auth/with-permission";

/**
 * The console's read routes: what the pages render, for react-query's live refresh. Each is
 * declared with the read permission every role holds, so a signed-out caller gets 401 and the
 * authorisation matrix covers them with the control-plane routes.
 */
export function consoleRoute<T extends z.ZodType>(query: T, handler: (q: z.output<T>, req: Request, principal: TUserPrincipal) => Promise<unknown>) {
  return withPermission("routing.read", async ({ req, principal }) => {
    const parsed = query.safeParse(Object.fromEntries(new URL(req.url).searchParams.entries()));
    if (!parsed.success) {
      return Response.json(
        { error: { code: "invalid_query", message: "invalid query", fields: parsed.error.issues.map((i) => ({ path: i.path.join("."), message: i.message })) } },
        { status: 400 },
      );
    }
    return Response.json(await handler(parsed.data, req, principal), { headers: { "cache-control": "no-store" } });
  });
}

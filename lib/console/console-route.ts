import "server-only";
import type { z } from "zod";
import { errorResponse, fromZod } from "@/lib/http";
import { type TUserPrincipal, withPermission } from "@/lib/auth";

/**
 * The console's read routes: what the pages render, for react-query's live refresh. Each is
 * declared with the read permission every role holds, so a signed-out caller gets 401 and the
 * authorisation matrix covers them with the control-plane routes.
 */
export function consoleRoute<T extends z.ZodType>(query: T, handler: (q: z.output<T>, req: Request, principal: TUserPrincipal) => Promise<unknown>) {
  return withPermission("routing.read", async ({ req, principal }) => {
    const parsed = query.safeParse(Object.fromEntries(new URL(req.url).searchParams.entries()));
    if (!parsed.success) return errorResponse(fromZod(parsed.error, 400, "the query string is malformed"));
    return Response.json(await handler(parsed.data, req, principal), { headers: { "cache-control": "no-store" } });
  });
}

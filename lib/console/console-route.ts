import "server-only";
import { z } from "zod";

/**
 * The console's read routes. They serve what the console pages render, to react-query's live
 * refresh. Governance's permission list has no read permission for routing telemetry yet; when
 * it gains one (e.g. "console.read" in every role's READ set), each route becomes
 * `export const GET = withPermission("console.read", …)` — a one-line change per route.
 */
export function consoleRoute<T extends z.ZodType>(query: T, handler: (q: z.output<T>, req: Request) => Promise<unknown>) {
  return async (req: Request): Promise<Response> => {
    const parsed = query.safeParse(Object.fromEntries(new URL(req.url).searchParams.entries()));
    if (!parsed.success) {
      return Response.json(
        { error: { code: "invalid_query", message: "invalid query", fields: parsed.error.issues.map((i) => ({ path: i.path.join("."), message: i.message })) } },
        { status: 400 },
      );
    }
    return Response.json(await handler(parsed.data, req), { headers: { "cache-control": "no-store" } });
  };
}

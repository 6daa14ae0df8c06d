import { getShiftEvent } from "@/lib/console/get-shift-event";

// See lib/console/console-route.ts for why this read route does not declare a permission yet.
export async function GET(_req: Request, ctx: { params: Promise<{ id: string }> }): Promise<Response> {
  const event = await getShiftEvent((await ctx.params).id);
  if (!event) return Response.json({ error: { code: "not_found", message: "no such shift event" } }, { status: 404 });
  return Response.json({ event }, { headers: { "cache-control": "no-store" } });
}

import { withPermission } from "@/lib/auth/with-permission";
import { getShiftEvent } from "@/lib/console/get-shift-event";

export const GET = withPermission("routing.read", async ({ params }) => {
  const event = await getShiftEvent(params.id ?? "");
  if (!event) return Response.json({ error: { code: "not_found", message: "no such shift event" } }, { status: 404 });
  return Response.json({ event }, { headers: { "cache-control": "no-store" } });
});

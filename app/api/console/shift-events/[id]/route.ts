import { refusal, withPermission } from "@/lib/auth/with-permission";
import { getShiftEvent } from "@/lib/console/why/get-shift-event";

export const GET = withPermission("routing.read", async ({ params }) => {
  const event = await getShiftEvent(params.id ?? "");
  if (!event) return refusal("not_found", "no such shift event");
  return Response.json({ event }, { headers: { "cache-control": "no-store" } });
});

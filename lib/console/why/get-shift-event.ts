import "server-only";
import { getPrisma } from "@/lib/db";
import { toShiftEvent } from "./to-shift-event";
import type { TShiftEvent } from "../types";

export async function getShiftEvent(id: string): Promise<TShiftEvent | null> {
  if (!/^\d{1,19}$/.test(id)) return null;
  const row = await getPrisma().shiftEvent.findUnique({ where: { id: BigInt(id) } });
  return row ? toShiftEvent(row) : null;
}

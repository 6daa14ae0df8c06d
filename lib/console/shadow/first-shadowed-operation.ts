import "server-only";
import { getPrisma } from "@/lib/db";

/** The first operation (by key) with a factor-list version in shadow, or null: the shadow page's default. */
export async function firstShadowedOperation(): Promise<string | null> {
  const row = await getPrisma().operationPolicy.findFirst({
    where: { shadowVersionId: { not: null } },
    orderBy: { operationKey: "asc" },
    select: { operationKey: true },
  });
  return row?.operationKey ?? null;
}

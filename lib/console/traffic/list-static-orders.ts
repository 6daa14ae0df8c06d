import "server-only";
import { getPrisma } from "@/lib/db";
import type { TFactorList } from "@/router-core/index";

/**
 * Each operation's static priority order (its active factor list's providers, else the
 * catalogue's order) and every breaker's state now, by "provider|region": where the kill switch
 * would send traffic.
 */
export async function listStaticOrders(): Promise<{ priority: Record<string, string[]>; breakers: Record<string, string> }> {
  const prisma = getPrisma();
  const [policies, providers, breakers] = await Promise.all([
    prisma.operationPolicy.findMany({ where: { activeVersionId: { not: null } }, select: { operationKey: true, activeVersionId: true } }),
    prisma.provider.findMany({ select: { key: true }, orderBy: { key: "asc" } }),
    prisma.breakerState.findMany({ select: { providerKey: true, region: true, state: true } }),
  ]);
  const versions = await prisma.factorListVersion.findMany({
    where: { id: { in: policies.map((p) => p.activeVersionId!) } },
    select: { id: true, document: true },
  });
  const catalogue = providers.map((p) => p.key);
  const priority: Record<string, string[]> = {};
  for (const p of policies) {
    const listed = (versions.find((v) => v.id === p.activeVersionId)?.document as unknown as TFactorList | undefined)?.providers ?? [];
    priority[p.operationKey] = listed.length > 0 ? listed : catalogue;
  }
  return {
    priority,
    breakers: Object.fromEntries(breakers.map((b) => [`${b.providerKey}|${b.region}`, String((b.state as { state?: unknown } | null)?.state ?? "closed")])),
  };
}

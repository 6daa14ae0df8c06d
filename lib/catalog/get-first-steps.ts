import type { PrismaClient } from "../db";

export type TFirstStep = { key: string; title: string; done: boolean; href: string; hint: string };

/**
 * Where a new instance stands on the way to its first decision: providers, an operation, a factor
 * list, its approval (active), an API key, a decide call. The console's empty state walks the
 * first admin through them in order.
 */
export async function getFirstSteps(prisma: PrismaClient): Promise<{ steps: TFirstStep[]; operation: string | null; allDone: boolean }> {
  const [providers, operations, factorLists, active, keys, decided] = await Promise.all([
    prisma.provider.count(),
    prisma.operation.findMany({ select: { key: true }, orderBy: { createdAt: "asc" }, take: 1 }),
    prisma.factorListVersion.count(),
    prisma.operationPolicy.findFirst({ where: { activeVersionId: { not: null } }, select: { operationKey: true } }),
    prisma.apiKey.count({ where: { revokedAt: null, scopes: { has: "decide" } } }),
    // The rollup, not the decision table: every logged decision is counted there, whichever store
    // keeps the rows (lib/decision-store); in Postgres mode a decision's transaction adds its cell to
    // the pending ones, which the roller moves to decision_rollup.
    prisma.$queryRaw<{ one: number }[]>`select 1 as one from decision_rollup_pending union all (select 1 from decision_rollup limit 1) limit 1`,
  ]);
  const steps: TFirstStep[] = [
    {
      key: "providers",
      title: "Add your providers",
      done: providers > 0,
      href: "/catalog",
      hint: "Each account you route between: regions it serves and certifications it holds (declared first, under Regions and certifications), cost, credential reference (env:NAME).",
    },
    {
      key: "operation",
      title: "Add an operation",
      done: operations.length > 0,
      href: "/catalog",
      hint: "What callers ask to route (e.g. SEND_SMS), with the certifications each region requires (EU: gdpr).",
    },
    {
      key: "factor_list",
      title: "Write its factor list",
      done: factorLists > 0,
      href: "/factor-lists/new",
      hint: "A policy author lists the providers in priority order, the gates and the score weights.",
    },
    {
      key: "approval",
      title: "Get it approved and activated",
      done: active !== null,
      href: "/factor-lists",
      hint: "An approver and someone in compliance review it (neither may be its author); an approver activates it.",
    },
    {
      key: "api_key",
      title: "Create an API key",
      done: keys > 0,
      href: "/governance/access",
      hint: "An admin creates a key with the decide scope for the calling service.",
    },
    {
      key: "decide",
      title: "Make the first decide call",
      done: decided.length > 0,
      href: "/decisions",
      hint: "Call /api/v1/decide with the key; the decision explains every gate.",
    },
  ];
  return { steps, operation: active?.operationKey ?? operations[0]?.key ?? null, allDone: steps.every((s) => s.done) };
}

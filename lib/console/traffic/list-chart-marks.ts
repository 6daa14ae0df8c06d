import "server-only";
import { getPrisma } from "@/lib/db";
import type { TChartMark } from "../types";

const fmtShare = (v: number | undefined) => (v === undefined ? "–" : `${Math.round(v * 1000) / 10}%`);

/**
 * Everything that can explain a bend in the share chart of (operation, region) within
 * [from, to]: controller shift events (not the per-tick probe-floor bookkeeping), policy
 * activations and rollbacks, overrides starting or ending, and (demo mode's chaos panel) simulated
 * provider faults in the region starting or ending. Oldest first. A fault is a provider's in one
 * region, not an operation's: it is marked only on the charts of operations that route to that
 * provider (`providers`: the factor list's, the planned and the served ones).
 */
export async function listChartMarks(operation: string, region: string, from: number, to: number, providers: readonly string[]): Promise<TChartMark[]> {
  const prisma = getPrisma();
  const range = { gte: new Date(from), lte: new Date(to) };
  const [shifts, versions, overrides, faults] = await Promise.all([
    prisma.shiftEvent.findMany({
      where: { operationKey: operation, region, at: range, type: { not: "probe_floor_held" } },
      orderBy: { at: "asc" },
      take: 500,
    }),
    prisma.factorListVersion.findMany({ where: { operationKey: operation, activatedAt: range }, orderBy: { activatedAt: "asc" } }),
    prisma.override.findMany({
      where: {
        AND: [
          { OR: [{ operationKey: null }, { operationKey: operation }] },
          { OR: [{ region: null }, { region }] },
          { OR: [{ createdAt: range }, { endedAt: range }] },
        ],
      },
      orderBy: { createdAt: "asc" },
    }),
    prisma.demoFault.findMany({
      where: { region, providerKey: { in: [...providers] }, OR: [{ startsAt: range }, { endsAt: range }, { endedAt: range }] },
      orderBy: { startsAt: "asc" },
      take: 200,
    }),
  ]);
  const marks: TChartMark[] = [];
  for (const s of shifts) {
    const p = s.providerKey;
    const from = (s.sharesFrom ?? {}) as Record<string, number>;
    const to = (s.sharesTo ?? {}) as Record<string, number>;
    marks.push({
      kind: "shift",
      id: s.id.toString(),
      at: s.at.getTime(),
      label: s.type,
      detail: p ? `${p} ${fmtShare(from[p])} → ${fmtShare(to[p])}${s.capped ? " (capped)" : ""}` : s.detail,
      provider: p,
      href: `/why?event=${s.id}`,
    });
  }
  for (const v of versions) {
    marks.push({
      kind: "activation",
      id: v.id,
      at: v.activatedAt!.getTime(),
      label: v.rollbackOfId ? `rollback to v${v.version}` : `v${v.version} activated`,
      detail: v.changeNote || `${operation} factor list v${v.version}`,
      provider: null,
      href: `/factor-lists/${encodeURIComponent(operation)}/${v.version}`,
    });
  }
  for (const o of overrides) {
    const what = `${o.kind.replaceAll("_", " ")}${o.providerKey ? ` ${o.providerKey}` : ""}`;
    if (o.createdAt.getTime() >= from) {
      marks.push({
        kind: "override",
        id: `${o.id}:start`,
        at: o.createdAt.getTime(),
        label: what,
        detail: o.reason,
        provider: o.providerKey,
        href: `/why?at=${o.createdAt.getTime()}`,
      });
    }
    if (o.endedAt && o.endedAt.getTime() >= from && o.endedAt.getTime() <= to) {
      marks.push({
        kind: "override",
        id: `${o.id}:end`,
        at: o.endedAt.getTime(),
        label: `${what} ended`,
        detail: o.endReason ?? "ended",
        provider: o.providerKey,
        href: `/why?at=${o.endedAt.getTime()}`,
      });
    }
  }
  for (const f of faults) {
    const what = `${f.kind.replaceAll("_", " ")} ${f.providerKey} ${f.region}`;
    const magnitude = f.kind === "latency" ? ` ×${f.magnitude}` : f.kind === "outage" ? "" : ` ${Math.round(f.magnitude * 100)}%`;
    const start = f.startsAt.getTime();
    const end = Math.min(f.endsAt.getTime(), f.endedAt?.getTime() ?? Infinity);
    if (start >= from && start <= to) {
      marks.push({
        kind: "fault",
        id: `${f.id}:start`,
        at: start,
        label: `fault injected: ${what}${magnitude}`,
        detail: `by ${f.createdBy}, until ${new Date(end).toISOString()}`,
        provider: f.providerKey,
        href: `/why?at=${start}`,
      });
    }
    if (end >= from && end <= to) {
      marks.push({
        kind: "fault",
        id: `${f.id}:end`,
        at: end,
        label: `fault ended: ${what}`,
        detail: f.endedAt ? `ended early by the chaos panel` : "planned end",
        provider: f.providerKey,
        href: `/why?at=${end}`,
      });
    }
  }
  return marks.sort((a, b) => a.at - b.at);
}

import "server-only";
import { getPrisma } from "@/lib/db";
import { listActiveOverrides } from "../providers/list-active-overrides";
import { listShiftEvents } from "./list-shift-events";
import type { TOverrideRow, TShares, TShiftEvent } from "../types";

export type TMoment = {
  at: number;
  shares: TShares | null;
  sharesAt: number | null;
  policyVersion: string | null;
  policyActivatedAt: number | null;
  overrides: TOverrideRow[];
  nearby: TShiftEvent[];
};

const NEARBY_MS = 5 * 60_000;

/** "Explain this moment": the shares, policy version and overrides in effect at `at`, and the shift events around it. */
export async function getMoment(operation: string, region: string, at: number): Promise<TMoment> {
  const prisma = getPrisma();
  const [sample, version, overrides, nearby] = await Promise.all([
    prisma.trafficShareSample.findFirst({ where: { operationKey: operation, region, at: { lte: new Date(at) } }, orderBy: { at: "desc" } }),
    prisma.factorListVersion.findFirst({ where: { operationKey: operation, activatedAt: { lte: new Date(at) } }, orderBy: { activatedAt: "desc" } }),
    listActiveOverrides({ operation, at }),
    listShiftEvents({ operation, region, from: at - NEARBY_MS, to: at + NEARBY_MS, significantOnly: true, limit: 50 }),
  ]);
  return {
    at,
    shares: (sample?.shares as TShares | undefined) ?? null,
    sharesAt: sample?.at.getTime() ?? null,
    policyVersion: version ? `v${version.version}` : null,
    policyActivatedAt: version?.activatedAt?.getTime() ?? null,
    overrides: overrides.filter((o) => o.region === null || o.region === region),
    nearby,
  };
}

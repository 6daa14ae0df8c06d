import "server-only";
import { getPrisma } from "@/lib/db";
import { parseFactorList } from "@/router-core/policy/codec";
import type { TFactorList } from "@/router-core/policy/schema";
import { listing1 } from "@/router-core/replay";
import type { TEvaluationSourceOption } from "./evaluation-types";

export const LISTING_1_SOURCE: TEvaluationSourceOption = {
  key: "listing1",
  label: "The paper's Listing 1 (reference)",
  operation: null,
  version: null,
  status: null,
};

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/** Listing 1, then every factor-list version (operation ascending, newest version first). */
export async function listEvaluationSources(): Promise<TEvaluationSourceOption[]> {
  const versions = await getPrisma().factorListVersion.findMany({
    orderBy: [{ operationKey: "asc" }, { version: "desc" }],
    select: { id: true, operationKey: true, version: true, status: true },
    take: 500,
  });
  return [
    LISTING_1_SOURCE,
    ...versions.map((v) => ({ key: v.id, label: `${v.operationKey} v${v.version}`, operation: v.operationKey, version: v.version, status: v.status })),
  ];
}

/**
 * A source and its factor list as the replay runs it: Listing 1 as the paper prints it, or a
 * version parsed from the YAML its author wrote (so defaults are today's router-core defaults,
 * as they would be if it were activated now). Null for an unknown key.
 */
export async function loadEvaluationSource(
  key: string,
): Promise<{ source: TEvaluationSourceOption; factorList: TFactorList } | { source: TEvaluationSourceOption; invalid: string } | null> {
  if (key === LISTING_1_SOURCE.key) return { source: LISTING_1_SOURCE, factorList: listing1() };
  if (!UUID.test(key)) return null;
  const v = await getPrisma().factorListVersion.findUnique({
    where: { id: key },
    select: { id: true, operationKey: true, version: true, status: true, yaml: true },
  });
  if (!v) return null;
  const source = { key: v.id, label: `${v.operationKey} v${v.version}`, operation: v.operationKey, version: v.version, status: v.status };
  const parsed = parseFactorList(v.yaml);
  if (!parsed.ok) return { source, invalid: parsed.errors.map((e) => `${e.path}: ${e.message}`).join("; ") };
  return { source, factorList: parsed.value };
}

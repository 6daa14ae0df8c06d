import "server-only";
import { consoleDecisionCounter } from "@/lib/decision-store";
import { z } from "zod";
import { ContractError, invalid, parseInput } from "@/lib/errors";
import { getPrisma } from "@/lib/db";
import { loadRecordedTraffic, fingerprintOf, getReplay, ReplayBusyError, startReplay } from "@/lib/replay";
import { parseFactorList } from "@/router-core/policy/codec";
import type { TFactorList } from "@/router-core/policy/schema";
import type { TWhatIfView } from "./evaluation-types";
import { prismaQueryable } from "../prisma-queryable";
import { toReplayStatus } from "./to-replay-status";
import { processSlot } from "@/lib/runtime";

/** Hours of recorded traffic the approval page can replay a version over. */
export const WHAT_IF_HOURS = [1, 3, 6] as const;
export type TWhatIfHours = (typeof WHAT_IF_HOURS)[number];
const WINDOW_STEP_MS = 5 * 60_000;
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

export const ZWhatIfRequest = z.strictObject({
  version: z.string({ error: "version must be a factor-list version id" }).regex(UUID, "version must be a factor-list version id"),
  hours: z
    .union(
      WHAT_IF_HOURS.map((h) => z.literal(h)),
      { error: `hours must be one of ${WHAT_IF_HOURS.join(", ")}` },
    )
    .default(3),
});

const whatIfKey = (versionId: string, hours: number) => `what-if:${versionId}:${hours}`;

/**
 * The replayed range ends at the last 5-minute boundary, so everyone opening the page within
 * those 5 minutes shares one run (the cache key's fingerprint includes the range).
 */
function rangeOf(hours: number, now = Date.now()): { from: Date; to: Date } {
  const to = Math.floor(now / WINDOW_STEP_MS) * WINDOW_STEP_MS;
  return { from: new Date(to - hours * 3_600_000), to: new Date(to) };
}

async function loadVersion(versionId: string) {
  const v = await getPrisma().factorListVersion.findUnique({ where: { id: versionId }, select: { id: true, operationKey: true, yaml: true } });
  if (!v) throw invalid([{ path: "version", message: `no factor-list version "${versionId}"` }]);
  return v;
}

/**
 * Why a range had nothing to replay, per key, with the fingerprint it was found for: the page's
 * polls (GETs) say it too instead of "not computed yet" until the range moves on. In a process
 * slot for the same reason as the replay runner's state.
 */
const notes = processSlot("whatIfNotes", () => new Map<string, { fingerprint: string; message: string }>());

type TActive = { policy: TFactorList; version: string } | null;

type TTarget = { versionId: string; operation: string; hours: TWhatIfHours; key: string } & (
  { ok: true; factorList: TFactorList; active: TActive; fingerprint: string; from: Date; to: Date } | { ok: false; message: string }
);

/** The operation's active factor list, whose compliance rules the replayed decisions are checked against. */
async function loadActive(operation: string): Promise<TActive> {
  const prisma = getPrisma();
  const pointer = await prisma.operationPolicy.findUnique({ where: { operationKey: operation }, select: { activeVersionId: true } });
  if (!pointer?.activeVersionId) return null;
  const v = await prisma.factorListVersion.findUnique({ where: { id: pointer.activeVersionId }, select: { version: true, yaml: true } });
  const parsed = v ? parseFactorList(v.yaml) : null;
  return v && parsed?.ok ? { policy: parsed.value, version: `v${v.version}` } : null;
}

/** The version and range a request names: what its replay would run over and the job's fingerprint. */
async function targetOf(input: unknown): Promise<TTarget> {
  const req = parseInput(ZWhatIfRequest, input);
  const v = await loadVersion(req.version);
  const base = { versionId: v.id, operation: v.operationKey, hours: req.hours, key: whatIfKey(v.id, req.hours) };
  const parsed = parseFactorList(v.yaml);
  if (!parsed.ok) return { ...base, ok: false, message: `this version does not parse: ${parsed.errors.map((e) => `${e.path}: ${e.message}`).join("; ")}` };
  const { from, to } = rangeOf(req.hours);
  const active = await loadActive(v.operationKey);
  // A new active version changes what counts as a compliance breach, so it is part of the job's identity.
  const fingerprint = fingerprintOf(["what-if", parsed.value, active?.version ?? null, from.getTime(), to.getTime()]);
  return { ...base, ok: true, factorList: parsed.value, active, from, to, fingerprint };
}

function view(t: TTarget): TWhatIfView {
  const { latest, lastDone, queuePosition } = getReplay(t.key);
  const result =
    lastDone?.output?.kind === "what-if"
      ? { ...lastDone.output.result, finishedAt: lastDone.finishedAt ?? lastDone.queuedAt, fingerprint: lastDone.fingerprint }
      : null;
  const note = t.ok ? notes.get(t.key) : undefined;
  const unavailable = !t.ok ? t.message : note && note.fingerprint === t.fingerprint ? note.message : null;
  return { versionId: t.versionId, operation: t.operation, hours: t.hours, status: toReplayStatus(latest, queuePosition), result, unavailable };
}

/** What the approval page polls: the latest what-if of a version over the last `hours` and its last result. */
export async function getWhatIf(input: unknown): Promise<TWhatIfView> {
  return view(await targetOf(input));
}

/**
 * Loads the operation's recorded decisions and metric buckets for the range (async SQL on this
 * thread) and queues the replay of the version over them on the worker thread.
 */
export async function requestWhatIf(input: unknown, requestedBy: string): Promise<TWhatIfView> {
  const t = await targetOf(input);
  if (!t.ok || getReplay(t.key).latest?.fingerprint === t.fingerprint) return view(t);
  let recorded;
  try {
    recorded = await loadRecordedTraffic(prismaQueryable(), t.operation, t.from, t.to, t.factorList.providers, consoleDecisionCounter());
  } catch (err) {
    // No decisions in the range: nothing to replay, which the page says as it is.
    if (!(err instanceof RangeError)) throw err;
    notes.set(t.key, { fingerprint: t.fingerprint, message: err.message });
    return view(t);
  }
  try {
    startReplay(t.key, t.fingerprint, { kind: "what-if", factorList: t.factorList, recorded, seed: 1, active: t.active ?? undefined }, requestedBy, 1);
  } catch (err) {
    if (err instanceof ReplayBusyError) throw new ContractError("busy", err.message, undefined, { status: 409 });
    throw err;
  }
  notes.delete(t.key);
  return view(t);
}

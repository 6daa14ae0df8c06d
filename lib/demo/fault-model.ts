import { z } from "zod";

/**
 * What the chaos panel can do to a simulated provider in one region. The simulator applies the
 * active faults when it plays a provider's answer; Switchyard itself only ever sees the outcomes.
 */
export const FAULT_KINDS = ["outage", "latency", "completion_drop", "quota_cut"] as const;
export type TFaultKind = (typeof FAULT_KINDS)[number];

export const FAULT_KIND_LABELS: Record<TFaultKind, string> = {
  outage: "complete outage",
  latency: "latency ×N",
  completion_drop: "completion drop",
  quota_cut: "quota cut",
};

export type TFault = {
  id: string;
  provider: string;
  region: string;
  kind: TFaultKind;
  /** latency: multiplier (> 1); completion_drop: share of flows that fail; quota_cut: share of calls refused; outage: 1. */
  magnitude: number;
  startsAt: number;
  endsAt: number;
};

export const ZInjectFault = z
  .strictObject({
    provider: z.string().min(1).max(200),
    region: z.string().min(1).max(64),
    kind: z.enum(FAULT_KINDS),
    magnitude: z.number().positive().max(100).optional(),
    durationSeconds: z.number().int().min(5).max(3600),
  })
  .superRefine((f, ctx) => {
    const m = f.magnitude;
    if (m === undefined) return;
    if (f.kind === "latency" && m <= 1) ctx.addIssue({ code: "custom", path: ["magnitude"], message: `latency multiplier must be > 1, got ${m}` });
    if ((f.kind === "completion_drop" || f.kind === "quota_cut") && m > 1) {
      ctx.addIssue({ code: "custom", path: ["magnitude"], message: `${f.kind} magnitude is a share in (0, 1], got ${m}` });
    }
  });
export type TInjectFault = z.infer<typeof ZInjectFault>;

/** Defaults that make each kind visible on the overview within a minute or two. */
export function defaultMagnitude(kind: TFaultKind): number {
  switch (kind) {
    case "outage":
      return 1;
    case "latency":
      return 5;
    case "completion_drop":
      return 0.6;
    case "quota_cut":
      return 0.8;
  }
}

/** The combined effect of every fault active on (provider, region) at `now`; the strongest of each kind wins. */
export type TFaultEffect = { outage: boolean; latencyFactor: number; completionDrop: number; quotaRefusal: number };

export const NO_EFFECT: TFaultEffect = { outage: false, latencyFactor: 1, completionDrop: 0, quotaRefusal: 0 };

export function isActive(f: TFault, now: number): boolean {
  return f.startsAt <= now && now < f.endsAt;
}

export function effectOf(faults: readonly TFault[], provider: string, region: string, now: number): TFaultEffect {
  let effect = NO_EFFECT;
  for (const f of faults) {
    if (f.provider !== provider || f.region !== region || !isActive(f, now)) continue;
    effect = { ...effect };
    if (f.kind === "outage") effect.outage = true;
    else if (f.kind === "latency") effect.latencyFactor = Math.max(effect.latencyFactor, f.magnitude);
    else if (f.kind === "completion_drop") effect.completionDrop = Math.max(effect.completionDrop, f.magnitude);
    else effect.quotaRefusal = Math.max(effect.quotaRefusal, f.magnitude);
  }
  return effect;
}

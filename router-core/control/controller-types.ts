import type { TShares } from "../types";

/** The controller's data: configuration, per-tick input, state and events (controller.ts steps them). */

export type TControllerSafety = {
  max_traffic_shift_per_minute: number;
  primary_probe_share: number;
  primary_recovery_cooldown_seconds: number;
};

/** Field names are the factor list's; a parsed factor list is structurally one of these. */
export type TControllerConfig = {
  /** Static priority order, primary first; ties in score fall back to it. */
  priority: readonly string[];
  hysteresis_score_margin: number;
  safety: TControllerSafety;
  min_sample_size: number;
  /**
   * The most a displaced provider that looks healthy again is probed at while it proves its
   * recovery (regain-margin.ts): enough to bring its window to `min_sample_size` samples, never
   * less than the probe floor nor more than this. Absent: DEFAULT_RECOVERY_PROBE_SHARE.
   */
  recovery_probe_share?: number;
  /** The metric window, for explanations only (calls per minute a probe share brings). */
  metric_window_minutes?: number;
};

export type TControllerCandidate = {
  provider: string;
  /** Passed every hard gate. */
  eligible: boolean;
  /** 0–100; null when the provider could not be scored (no data). */
  score: number | null;
  sampleCount: number;
  /**
   * The region's own calls and provider-attributable failures in the window (the worse of failed
   * calls and failed completions), whatever window the score used: a displaced primary proves its
   * recovery on them (regain-margin.ts). Absent: not known, and it proves it only on
   * `min_sample_size` samples.
   */
  regional?: { samples: number; failures: number };
  /** Score points the candidate lost to confidence_from_sample (thin window); 0 or absent when none. */
  confidencePoints?: number;
  /**
   * The measured rate scores behind `score` (completion_rate_5m, error_rate_5m): a challenger's
   * lead on one counts only when its failure rate is proven lower (significance.ts). Absent: its
   * rate leads count as scored.
   */
  rates?: readonly TRateEvidence[];
  /** Names of the hard gates that failed; decides between hard_exclusion and circuit_open_shift_to_secondary. */
  failedGates?: readonly string[];
  /** Metric snapshot behind the score (completion, p95, …), copied into events as evidence. */
  metrics?: Readonly<Record<string, unknown>>;
};

/** One rate score of a candidate: the failure rate it measured on `samples` and the score points it gave. */
export type TRateEvidence = { score: string; failureRate: number; samples: number; points: number };

export type TControllerInput = { candidates: readonly TControllerCandidate[] };

/**
 * The closed set of controller event types. `provider` on the event is the provider the event is
 * about, as noted per type.
 */
export const CONTROLLER_EVENT_TYPES = [
  /** Shares moved toward a challenger that beat the incumbent by the hysteresis margin. provider: the demoted leader. */
  "score_decay_shift",
  /** A provider failing a hard gate other than its breaker alone: its share went to the others at once. provider: the excluded one. */
  "hard_exclusion",
  /**
   * A provider excluded only by its circuit breaker: once when it becomes so (decide stops sending
   * it requests at once), and for each capped step of its planned share down to the probe floor.
   * provider: the breaker-open one.
   */
  "circuit_open_shift_to_secondary",
  /** Capped consolidation toward the new leader after the previous leader was excluded. provider: the excluded leader. */
  "exclusion_rebalance",
  /** A declining share stopped at the probe floor. provider: the floored one. */
  "probe_floor_held",
  /** A provider back in eligibility regained its probe floor. provider: the first one that gained. */
  "probe_floor_restored",
  /** A displaced leader looks recovered: it scores at least the lead it needs over the leader. provider: the recovering one. */
  "recovery_detected",
  /**
   * A recovering provider's planned share rose above the probe floor so its evidence can prove
   * the recovery (the action at recovery_detected in the paper's Table 12, docs/references.md). provider: the recovering one.
   */
  "probe_exploration_increase",
  /** The recovery cooldown began; the event's detail carries its end. provider: the recovering one. */
  "cooldown_started",
  /** The recovering provider stopped leading, lost eligibility, or was demoted during failback. provider: it. */
  "recovery_aborted",
  /** Capped movement back to the recovered leader. provider: the recovered leader. */
  "failback_step",
  /** The recovered leader reached its full target share. provider: it. */
  "full_failback_completed",
  /** Movement toward the target without a new cause (restored or hand-edited shares). provider: the leader. */
  "rebalance",
  /** Every provider failed a hard gate; shares are kept and the fallback policy answers. provider: null. */
  "no_eligible_provider",
] as const;
export type TControllerEventType = (typeof CONTROLLER_EVENT_TYPES)[number];

export type TControllerEvidence = {
  provider: string;
  eligible: boolean;
  score: number | null;
  sampleCount: number;
  regional: { samples: number; failures: number } | null;
  confidencePoints: number;
  failedGates: string[];
  metrics: Record<string, unknown>;
};

export type TControllerEvent = {
  at: number;
  operation: string;
  region: string | null;
  type: TControllerEventType;
  provider: string | null;
  leader: { from: string | null; to: string | null };
  shares: { from: TShares; to: TShares };
  /** The movement wanted more than max_traffic_shift_per_minute allowed this tick. */
  capped: boolean;
  detail: string;
  evidence: TControllerEvidence[];
};

export const SHIFT_REASONS = ["score_decay_shift", "exclusion_rebalance", "circuit_open_shift_to_secondary", "failback_step"] as const;
export type TShiftReason = (typeof SHIFT_REASONS)[number];

/**
 * A displaced provider on its way back. `cooldown`: it looks healthy again and is probed at the
 * recovery probe share; failback starts once the cooldown has passed and its evidence proves the
 * recovery (regain-margin.ts). `failback`: it leads again and takes traffic back at the capped rate.
 */
export type TRecovery = {
  provider: string;
  phase: "cooldown" | "failback";
  detectedAt: number;
  cooldownUntil: number;
  /** The share it is probed at during the cooldown, fixed at detection. Absent in states stored before it existed: the probe floor. */
  probeShare?: number;
};

/** Share moved by the capped movement at one tick (hard exclusions are not capped and not counted). */
export type TShareMove = { at: number; moved: number };

export type TControllerState = {
  operation: string;
  region: string | null;
  shares: TShares;
  leader: string | null;
  lastTickAt: number;
  /** Providers traffic was moved away from; they keep the probe floor while eligible. */
  probeFloor: string[];
  /** Former leaders displaced by degradation or exclusion; they come back only through recovery. */
  displaced: string[];
  recovery: TRecovery | null;
  /** Why shares are still moving toward the current leader, with the provider they move from. */
  shift: { reason: TShiftReason; from: string | null } | null;
  /** Start of the current period with no eligible provider. */
  noEligibleSince: number | null;
  /** Providers excluded only by their circuit breaker at the last tick, so the opening is reported once. */
  breakerHeld: string[];
  /**
   * At the last tick, what each displaced former leader lacks to take traffic back (the
   * hysteresis margin at work; regain-margin.ts). Absent in states stored before it existed.
   */
  regain?: TRegainGap[];
  /**
   * The capped moves of the last minute, so the shift cap holds over any 60-second window and not
   * only per tick. Absent in states stored before it existed (then nothing is counted).
   */
  recentMoves?: TShareMove[];
};

export type TControllerResult = { state: TControllerState; shares: TShares; events: TControllerEvent[] };

/**
 * What a displaced former leader lacks to take traffic back, in terms an operator can act on: the
 * score lead it needs (0 over a leader it outranks in the priority order, the hysteresis margin
 * over one it does not), the samples that would prove it, the probe share that brings them, and
 * when it is looked at again. regain-margin.ts computes it every tick.
 */
export type TRegainGap = {
  provider: string;
  leader: string;
  /** Both at full sample confidence: the thin window's deficit is what the samples test covers. */
  score: number;
  leaderScore: number;
  /** The lead it needs: 0 when it ranks above the leader in the priority order, else the hysteresis margin. */
  margin: number;
  /** Score points still missing: leaderScore + margin − score; ≤ 0 when the score alone would do. */
  needs: number;
  /** Its evidence proves the recovery (enough samples, or a failure-rate bound low enough). */
  trusted: boolean;
  /** Samples in its window, and the samples that would prove it at its current failure count. Absent in older states. */
  samples?: number;
  samplesNeeded?: number;
  /** The share it is probed at, and about how many calls a minute that brings. */
  probeShare?: number;
  callsPerMinute?: number | null;
  /** `waiting`: short of the score lead; `cooldown`: recovering, failback at `reconsiderAt` once proven. */
  phase?: "waiting" | "cooldown";
  /** When failback can start (end of cooldown); null when it is looked at again at every tick. */
  reconsiderAt?: number | null;
};

"use client";

import { FALLBACK_POLICY_NAMES, GATE_NAMES, SCORE_DIRECTIONS, SCORE_NAMES, STALE_POLICIES, STRATEGY_NAMES } from "@/router-core/index";
import type { TYamlPath } from "@/lib/console/factor-lists/factor-list-yaml-edit";
import { DEFAULTS, FieldErrors, NumberField, Section, SelectField, WEIGHT_TOLERANCE, WeightInput, errorsAt, get, type TError } from "./form-fields";
import { numberText } from "@/router-core/policy/number-text";

/** What every section of the form needs: the parsed YAML, its errors, and how to write a field back. */
export type TFormContext = {
  raw: Record<string, unknown>;
  errors: readonly TError[];
  set: (path: TYamlPath, value: unknown) => void;
  /** A stable prefix for element ids. */
  idBase: string;
};

const value = (ctx: TFormContext, path: TYamlPath) => get(ctx.raw, path);
const fallback = (path: TYamlPath) => {
  const v = get(DEFAULTS, path);
  return typeof v === "number" ? v : undefined;
};

export function ProvidersSection({ ctx }: { ctx: TFormContext }) {
  const { raw, set, errors } = ctx;
  const providers = Array.isArray(raw.providers) ? (raw.providers as unknown[]).map(String) : [];
  return (
    <Section title="Operation and providers">
      <div className="grid grid-cols-[220px_1fr] items-center gap-2 text-xs">
        <span className="mono">operation</span>
        <span className="mono">{String(raw.operation ?? "")}</span>
      </div>
      <label className="grid grid-cols-[220px_1fr] items-center gap-2 text-xs">
        <span className="mono" title="static priority order, primary first; empty = the catalogue's order">
          providers (priority order)
        </span>
        <span className="flex flex-col gap-1">
          <input
            className="field mono"
            defaultValue={providers.join(", ")}
            key={providers.join(",")}
            placeholder="provider_A, provider_B (empty: catalogue order)"
            onBlur={(e) => {
              const list = e.target.value
                .split(",")
                .map((s) => s.trim())
                .filter((s) => s !== "");
              if (list.join(",") !== providers.join(",")) set(["providers"], list.length > 0 ? list : undefined);
            }}
            data-testid="form-providers"
          />
          <FieldErrors errors={errorsAt(errors, ["providers"])} id={`${ctx.idBase}-providers`} />
        </span>
      </label>
    </Section>
  );
}

export function GatesSection({ ctx }: { ctx: TFormContext }) {
  const { raw, set, errors } = ctx;
  const gates: string[] = Array.isArray(raw.gates) ? (raw.gates as unknown[]).map(String) : [...DEFAULTS.gates];
  // Known gates keep router-core's order; anything else the YAML names stays (and fails validation there).
  const toggleGate = (gate: string, on: boolean) => {
    const known: string[] = GATE_NAMES.filter((g) => g === gate || gates.includes(g));
    set(["gates"], on ? [...known, ...gates.filter((g) => !known.includes(g))] : gates.filter((g) => g !== gate));
  };
  return (
    <Section title="Hard gates" note="A failed gate excludes a candidate at once; nothing trades it off.">
      <div className="grid grid-cols-2 gap-x-4 gap-y-1 text-xs">
        {GATE_NAMES.map((g) => (
          <label key={g} className="flex items-center gap-2">
            <input type="checkbox" checked={gates.includes(g)} onChange={(e) => toggleGate(g, e.target.checked)} data-testid={`form-gate-${g}`} />
            <span className="mono">{g}</span>
          </label>
        ))}
      </div>
      <FieldErrors errors={errorsAt(errors, ["gates"])} id={`${ctx.idBase}-gates`} />
    </Section>
  );
}

/** The scores in use with their weights, and the edits that keep router-core's defaults when the YAML has none. */
function useScores(ctx: TFormContext) {
  const { raw, set } = ctx;
  const scores = (raw.scores && typeof raw.scores === "object" ? raw.scores : DEFAULTS.scores) as Record<
    string,
    { weight?: unknown; direction?: unknown } | null
  >;
  const used = Object.keys(scores);
  const sum = used.reduce((s, k) => s + (typeof scores[k]?.weight === "number" ? (scores[k]!.weight as number) : 0), 0);
  const nonNumeric = used.filter((k) => typeof scores[k]?.weight !== "number");
  const sumOk = nonNumeric.length === 0 && Math.abs(sum - 1) <= WEIGHT_TOLERANCE;
  // Scores left out of the YAML are router-core's defaults: the first edit writes them all, so the others do not vanish.
  const hasScores = raw.scores !== null && typeof raw.scores === "object";
  const directionOf = (name: string) => SCORE_DIRECTIONS[name as keyof typeof SCORE_DIRECTIONS];
  const setWeight = (name: string, w: unknown) => {
    if (hasScores) set(["scores", name, "weight"], w);
    else set(["scores"], { ...scores, [name]: { weight: w, direction: scores[name]?.direction ?? directionOf(name) } });
  };
  const toggleScore = (name: string, on: boolean) => {
    const entry = on ? { weight: 0, direction: directionOf(name) } : undefined;
    if (hasScores) return set(["scores", name], entry);
    const next: Record<string, unknown> = { ...scores };
    if (entry) next[name] = entry;
    else delete next[name];
    set(["scores"], next);
  };
  return { scores, used, sum, nonNumeric, sumOk, setWeight, toggleScore };
}

export function ScoresSection({ ctx }: { ctx: TFormContext }) {
  const { errors } = ctx;
  const { scores, used, sum, nonNumeric, sumOk, setWeight, toggleScore } = useScores(ctx);
  const scoreErrors = errors.filter((e) => e.path === "scores");
  return (
    <Section title="Scores" note="Weights must sum to 1; each score's direction is fixed by its meaning.">
      <table className="text-xs" data-testid="form-scores">
        <tbody>
          {SCORE_NAMES.map((name) => {
            const on = used.includes(name);
            const own = errorsAt(errors, ["scores", name]);
            return (
              <tr key={name} style={{ height: 28 }}>
                <td className="pr-2">
                  <label className="flex items-center gap-2">
                    <input type="checkbox" checked={on} onChange={(e) => toggleScore(name, e.target.checked)} data-testid={`form-score-${name}`} />
                    <span className="mono">{name}</span>
                  </label>
                </td>
                <td className="muted pr-2">{SCORE_DIRECTIONS[name]} is better</td>
                <td className="pr-2">
                  {on ? (
                    <WeightInput value={scores[name]?.weight} onSet={(w) => setWeight(name, w)} invalid={own.length > 0} testId={`form-weight-${name}`} />
                  ) : null}
                </td>
                <td>
                  <FieldErrors errors={own} id={`${ctx.idBase}-${name}`} />
                </td>
              </tr>
            );
          })}
        </tbody>
      </table>
      <p className="text-xs" role="status" aria-live="polite" data-testid="weight-sum" data-ok={sumOk} style={{ color: sumOk ? "var(--ok)" : "var(--bad)" }}>
        Σ weights = <span className="mono">{numberText(sum)}</span>
        {sumOk
          ? " ✓"
          : nonNumeric.length > 0
            ? ` · not a number: ${nonNumeric.join(", ")}`
            : ` · must be 1 (${sum > 1 ? "remove" : "add"} ${numberText(Math.abs(1 - sum))})`}
        {scoreErrors.length > 0 ? <span> · {scoreErrors.map((e) => e.message).join("; ")}</span> : null}
      </p>
    </Section>
  );
}

/** Guardrails, safety, strategy and telemetry: plain number and select fields. */
export function LimitSections({ ctx }: { ctx: TFormContext }) {
  const { set, errors } = ctx;
  const v = (path: TYamlPath) => value(ctx, path);
  return (
    <>
      <Section title="Guardrails" note="Soft limits: candidates outside them are dropped unless none is left. Empty: no limit.">
        <NumberField
          label="max_p95_ms"
          path={["guardrails", "max_p95_ms"]}
          value={v(["guardrails", "max_p95_ms"])}
          fallback={undefined}
          optional
          errors={errors}
          onSet={set}
        />
        <NumberField
          label="max_cost_per_request"
          path={["guardrails", "max_cost_per_request"]}
          value={v(["guardrails", "max_cost_per_request"])}
          fallback={undefined}
          optional
          errors={errors}
          onSet={set}
        />
        <NumberField
          label="min_confidence"
          path={["guardrails", "min_confidence"]}
          value={v(["guardrails", "min_confidence"])}
          fallback={undefined}
          optional
          errors={errors}
          onSet={set}
        />
      </Section>

      <Section title="Safety">
        {(["max_traffic_shift_per_minute", "primary_probe_share", "primary_recovery_cooldown_seconds"] as const).map((k) => (
          <NumberField key={k} label={k} path={["safety", k]} value={v(["safety", k])} fallback={fallback(["safety", k])} errors={errors} onSet={set} />
        ))}
        <label className="grid grid-cols-[220px_1fr] items-center gap-2 text-xs">
          <span className="mono">require_reason_code</span>
          <input
            type="checkbox"
            checked={(v(["safety", "require_reason_code"]) ?? DEFAULTS.safety.require_reason_code) === true}
            onChange={(e) => set(["safety", "require_reason_code"], e.target.checked)}
            data-testid="form-safety.require_reason_code"
          />
        </label>
        <NumberField
          label="hysteresis_score_margin"
          path={["hysteresis_score_margin"]}
          value={v(["hysteresis_score_margin"])}
          fallback={DEFAULTS.hysteresis_score_margin}
          errors={errors}
          onSet={set}
        />
      </Section>

      <Section title="Strategy and fallback">
        <SelectField label="strategy" path={["strategy"]} value={v(["strategy"]) ?? DEFAULTS.strategy} options={STRATEGY_NAMES} errors={errors} onSet={set} />
        <SelectField
          label="fallback_policy"
          path={["fallback_policy"]}
          value={v(["fallback_policy"]) ?? DEFAULTS.fallback_policy}
          options={FALLBACK_POLICY_NAMES}
          errors={errors}
          onSet={set}
        />
      </Section>

      <Section title="Telemetry">
        {(["refresh_interval_seconds", "metric_window_minutes", "min_sample_size"] as const).map((k) => (
          <NumberField key={k} label={k} path={[k]} value={v([k])} fallback={fallback([k])} errors={errors} onSet={set} />
        ))}
        <SelectField
          label="stale_policy"
          path={["stale_policy"]}
          value={v(["stale_policy"]) ?? DEFAULTS.stale_policy}
          options={STALE_POLICIES}
          errors={errors}
          onSet={set}
        />
      </Section>
    </>
  );
}

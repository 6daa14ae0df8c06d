"use client";

import { useId, useMemo, useState } from "react";
import { FALLBACK_POLICY_NAMES, GATE_NAMES, SCORE_DIRECTIONS, SCORE_NAMES, STALE_POLICIES, STRATEGY_NAMES, parseFactorList, type TFactorList } from "@/router-core/index";
import { editYaml, numberOrText, readYaml, type TYamlPath } from "@/lib/console/factor-list-yaml-edit";

type TError = { path: string; message: string };

/** Router-core's defaults, shown where the YAML leaves a field out. */
const DEFAULTS: TFactorList = (() => {
  const parsed = parseFactorList({ operation: "DEFAULTS" });
  if (!parsed.ok) throw new Error("router-core's defaults do not parse");
  return parsed.value;
})();

const WEIGHT_TOLERANCE = 1e-9;

function get(obj: unknown, path: TYamlPath): unknown {
  let cur = obj;
  for (const key of path) {
    if (cur === null || typeof cur !== "object") return undefined;
    cur = (cur as Record<string | number, unknown>)[key];
  }
  return cur;
}

const pathText = (path: TYamlPath) => path.map((p, i) => (typeof p === "number" ? `[${p}]` : i === 0 ? p : `.${p}`)).join("");

/** Errors at this path or below it. */
function errorsAt(errors: readonly TError[], path: TYamlPath): TError[] {
  const p = pathText(path);
  return errors.filter((e) => e.path === p || e.path.startsWith(`${p}.`) || e.path.startsWith(`${p}[`));
}

function FieldErrors({ errors, id }: { errors: TError[]; id: string }) {
  if (errors.length === 0) return null;
  return (
    <span id={id} className="text-xs" style={{ color: "var(--bad)" }} role="alert" data-testid="field-error">
      {errors.map((e) => e.message).join("; ")}
    </span>
  );
}

/**
 * A number (or optional number) field. The text being typed is kept locally while the field has
 * focus, so "0.0" on the way to "0.05" is not rewritten to "0" under the cursor.
 */
function NumberField({
  label,
  path,
  value,
  fallback,
  optional,
  errors,
  onSet,
  hint,
}: {
  label: string;
  path: TYamlPath;
  value: unknown;
  fallback: number | undefined;
  optional?: boolean;
  errors: readonly TError[];
  onSet: (path: TYamlPath, value: unknown) => void;
  hint?: string;
}) {
  const id = useId();
  const [editing, setEditing] = useState<string | null>(null);
  const shown = editing ?? (value === undefined ? "" : String(value));
  const own = errorsAt(errors, path);
  return (
    <label className="grid grid-cols-[220px_120px_1fr] items-center gap-2 text-xs">
      <span className="mono" title={hint}>
        {label}
      </span>
      <input
        className="field mono"
        inputMode="decimal"
        value={shown}
        placeholder={fallback === undefined ? "none" : `${fallback} (default)`}
        aria-invalid={own.length > 0}
        aria-describedby={own.length > 0 ? `${id}-e` : undefined}
        onFocus={() => setEditing(shown)}
        onBlur={() => setEditing(null)}
        onChange={(e) => {
          setEditing(e.target.value);
          const t = e.target.value.trim();
          onSet(path, t === "" ? undefined : numberOrText(t));
        }}
        data-testid={`form-${pathText(path)}`}
      />
      <span className="flex flex-col">
        {optional && value === undefined ? <span className="muted">not set{fallback === undefined ? "" : `: ${fallback}`}</span> : null}
        <FieldErrors errors={own} id={`${id}-e`} />
      </span>
    </label>
  );
}

function SelectField({ label, path, value, options, errors, onSet }: { label: string; path: TYamlPath; value: unknown; options: readonly string[]; errors: readonly TError[]; onSet: (path: TYamlPath, value: unknown) => void }) {
  const own = errorsAt(errors, path);
  const id = useId();
  const current = typeof value === "string" ? value : "";
  return (
    <label className="grid grid-cols-[220px_1fr] items-center gap-2 text-xs">
      <span className="mono">{label}</span>
      <span className="flex items-center gap-2">
        <select className="field mono" value={current} onChange={(e) => onSet(path, e.target.value)} aria-invalid={own.length > 0} aria-describedby={own.length > 0 ? `${id}-e` : undefined} data-testid={`form-${pathText(path)}`}>
          {options.includes(current) ? null : <option value={current}>{current || "(unset)"}</option>}
          {options.map((o) => (
            <option key={o}>{o}</option>
          ))}
        </select>
        <FieldErrors errors={own} id={`${id}-e`} />
      </span>
    </label>
  );
}

function Section({ title, children, note }: { title: string; children: React.ReactNode; note?: string }) {
  return (
    <fieldset className="flex flex-col gap-1.5 border-t pt-2" style={{ borderColor: "var(--border)" }}>
      <legend className="pr-2 text-xs font-semibold">{title}</legend>
      {note ? <p className="muted text-xs">{note}</p> : null}
      {children}
    </fieldset>
  );
}

/**
 * The form view of a factor-list draft. It edits the same YAML text as the YAML view, a field at a
 * time, and shows router-core's schema errors next to the field they name; the score weights'
 * sum is checked as it is typed. Fields the form does not cover (circuit breaker, regional
 * rules, description) stay as the YAML has them.
 */
export function FactorListForm({ yaml, onChange, errors, height }: { yaml: string; onChange: (yaml: string) => void; errors: readonly TError[]; height: number }) {
  const raw = useMemo(() => readYaml(yaml), [yaml]);
  const sumId = useId();
  if (raw === null) {
    return (
      <div className="flex items-center justify-center p-4 text-sm" style={{ height }} data-testid="factor-list-form">
        <p role="alert" style={{ color: "var(--bad)" }}>
          The YAML is not a mapping of fields yet: fix it in the YAML view, then the form can edit it.
        </p>
      </div>
    );
  }
  const set = (path: TYamlPath, value: unknown) => onChange(editYaml(yaml, path, value));
  const value = (path: TYamlPath) => get(raw, path);
  const fallback = (path: TYamlPath) => {
    const v = get(DEFAULTS, path);
    return typeof v === "number" ? v : undefined;
  };

  const gates: string[] = Array.isArray(raw.gates) ? (raw.gates as unknown[]).map(String) : [...DEFAULTS.gates];
  // Known gates keep router-core's order; anything else the YAML names stays (and fails validation there).
  const toggleGate = (gate: string, on: boolean) => {
    const known: string[] = GATE_NAMES.filter((g) => g === gate || gates.includes(g));
    set(["gates"], on ? [...known, ...gates.filter((g) => !known.includes(g))] : gates.filter((g) => g !== gate));
  };

  const scores = (raw.scores && typeof raw.scores === "object" ? raw.scores : DEFAULTS.scores) as Record<string, { weight?: unknown; direction?: unknown } | null>;
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
  const providers = Array.isArray(raw.providers) ? (raw.providers as unknown[]).map(String) : [];
  const scoreErrors = errors.filter((e) => e.path === "scores");

  return (
    <div className="flex flex-col gap-3 overflow-y-auto px-3 py-2" style={{ height }} data-testid="factor-list-form">
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
                const list = e.target.value.split(",").map((s) => s.trim()).filter((s) => s !== "");
                if (list.join(",") !== providers.join(",")) set(["providers"], list.length > 0 ? list : undefined);
              }}
              data-testid="form-providers"
            />
            <FieldErrors errors={errorsAt(errors, ["providers"])} id={`${sumId}-providers`} />
          </span>
        </label>
      </Section>

      <Section title="Hard gates" note="A failed gate excludes a candidate at once; nothing trades it off.">
        <div className="grid grid-cols-2 gap-x-4 gap-y-1 text-xs">
          {GATE_NAMES.map((g) => (
            <label key={g} className="flex items-center gap-2">
              <input type="checkbox" checked={gates.includes(g)} onChange={(e) => toggleGate(g, e.target.checked)} data-testid={`form-gate-${g}`} />
              <span className="mono">{g}</span>
            </label>
          ))}
        </div>
        <FieldErrors errors={errorsAt(errors, ["gates"])} id={`${sumId}-gates`} />
      </Section>

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
                    {on ? <WeightInput value={scores[name]?.weight} onSet={(w) => setWeight(name, w)} invalid={own.length > 0} testId={`form-weight-${name}`} /> : null}
                  </td>
                  <td>
                    <FieldErrors errors={own} id={`${sumId}-${name}`} />
                  </td>
                </tr>
              );
            })}
          </tbody>
        </table>
        <p className="text-xs" role="status" aria-live="polite" data-testid="weight-sum" data-ok={sumOk} style={{ color: sumOk ? "var(--ok)" : "var(--bad)" }}>
          Σ weights = <span className="mono">{Number(sum.toFixed(10))}</span>
          {sumOk ? " ✓" : nonNumeric.length > 0 ? ` · not a number: ${nonNumeric.join(", ")}` : ` · must be 1 (${sum > 1 ? "remove" : "add"} ${Number(Math.abs(1 - sum).toFixed(10))})`}
          {scoreErrors.length > 0 ? <span> · {scoreErrors.map((e) => e.message).join("; ")}</span> : null}
        </p>
      </Section>

      <Section title="Guardrails" note="Soft limits: candidates outside them are dropped unless none is left. Empty: no limit.">
        <NumberField label="max_p95_ms" path={["guardrails", "max_p95_ms"]} value={value(["guardrails", "max_p95_ms"])} fallback={undefined} optional errors={errors} onSet={set} />
        <NumberField label="max_cost_per_request" path={["guardrails", "max_cost_per_request"]} value={value(["guardrails", "max_cost_per_request"])} fallback={undefined} optional errors={errors} onSet={set} />
        <NumberField label="min_confidence" path={["guardrails", "min_confidence"]} value={value(["guardrails", "min_confidence"])} fallback={undefined} optional errors={errors} onSet={set} />
      </Section>

      <Section title="Safety">
        {(["max_traffic_shift_per_minute", "primary_probe_share", "primary_recovery_cooldown_seconds"] as const).map((k) => (
          <NumberField key={k} label={k} path={["safety", k]} value={value(["safety", k])} fallback={fallback(["safety", k])} errors={errors} onSet={set} />
        ))}
        <label className="grid grid-cols-[220px_1fr] items-center gap-2 text-xs">
          <span className="mono">require_reason_code</span>
          <input
            type="checkbox"
            checked={(value(["safety", "require_reason_code"]) ?? DEFAULTS.safety.require_reason_code) === true}
            onChange={(e) => set(["safety", "require_reason_code"], e.target.checked)}
            data-testid="form-safety.require_reason_code"
          />
        </label>
        <NumberField label="hysteresis_score_margin" path={["hysteresis_score_margin"]} value={value(["hysteresis_score_margin"])} fallback={DEFAULTS.hysteresis_score_margin} errors={errors} onSet={set} />
      </Section>

      <Section title="Strategy and fallback">
        <SelectField label="strategy" path={["strategy"]} value={value(["strategy"]) ?? DEFAULTS.strategy} options={STRATEGY_NAMES} errors={errors} onSet={set} />
        <SelectField label="fallback_policy" path={["fallback_policy"]} value={value(["fallback_policy"]) ?? DEFAULTS.fallback_policy} options={FALLBACK_POLICY_NAMES} errors={errors} onSet={set} />
      </Section>

      <Section title="Telemetry">
        {(["refresh_interval_seconds", "metric_window_minutes", "min_sample_size"] as const).map((k) => (
          <NumberField key={k} label={k} path={[k]} value={value([k])} fallback={fallback([k])} errors={errors} onSet={set} />
        ))}
        <SelectField label="stale_policy" path={["stale_policy"]} value={value(["stale_policy"]) ?? DEFAULTS.stale_policy} options={STALE_POLICIES} errors={errors} onSet={set} />
      </Section>
      <p className="muted text-xs">Circuit breaker, regional rules and the other fields are edited in the YAML view; the form leaves them as they are.</p>
    </div>
  );
}

function WeightInput({ value, onSet, invalid, testId }: { value: unknown; onSet: (w: unknown) => void; invalid: boolean; testId: string }) {
  const [editing, setEditing] = useState<string | null>(null);
  const shown = editing ?? (value === undefined ? "" : String(value));
  return (
    <input
      className="field mono w-20"
      inputMode="decimal"
      value={shown}
      aria-invalid={invalid}
      aria-label="weight"
      onFocus={() => setEditing(shown)}
      onBlur={() => setEditing(null)}
      onChange={(e) => {
        setEditing(e.target.value);
        onSet(numberOrText(e.target.value));
      }}
      data-testid={testId}
    />
  );
}

"use client";

import { useState, type FormEvent } from "react";
import { FAULT_KINDS, FAULT_KIND_LABELS, defaultMagnitude, type TFaultKind } from "@/lib/demo/fault-model";

export type TProviderOption = { key: string; regions: string[] };

const DURATIONS = [30, 60, 120, 300, 600];

const MAGNITUDE_HELP: Record<TFaultKind, string> = {
  outage: "every call fails (HTTP 503 or timeout)",
  latency: "latency multiplier",
  completion_drop: "share of flows that never complete (calls still succeed)",
  quota_cut: "share of calls refused with HTTP 429",
};

/** What the inject form holds; the region falls back to one the chosen provider serves. */
export function useFaultForm(providers: TProviderOption[]) {
  const [provider, setProvider] = useState(providers.find((p) => p.key === "provider_A")?.key ?? providers[0]?.key ?? "");
  const regions = providers.find((p) => p.key === provider)?.regions ?? [];
  const [region, setRegion] = useState("EU");
  const [kind, setKind] = useState<TFaultKind>("outage");
  const [magnitude, setMagnitude] = useState(String(defaultMagnitude("outage")));
  const [duration, setDuration] = useState(120);
  const effectiveRegion = regions.includes(region) ? region : (regions[0] ?? "");
  const chooseKind = (k: TFaultKind) => {
    setKind(k);
    setMagnitude(String(defaultMagnitude(k)));
  };
  const body = () => ({ provider, region: effectiveRegion, kind, durationSeconds: duration, ...(kind === "outage" ? {} : { magnitude: Number(magnitude) }) });
  return { provider, setProvider, regions, effectiveRegion, setRegion, kind, chooseKind, magnitude, setMagnitude, duration, setDuration, body };
}

type TFaultForm = ReturnType<typeof useFaultForm>;

function Choice<T extends string | number>({
  label,
  value,
  options,
  text,
  onChange,
  testId,
}: {
  label: string;
  value: T;
  options: readonly T[];
  text: (v: T) => string;
  onChange: (v: string) => void;
  testId: string;
}) {
  return (
    <label className="flex flex-col gap-1">
      {label}
      <select className="field" value={value} onChange={(e) => onChange(e.target.value)} data-testid={testId}>
        {options.map((o) => (
          <option key={o} value={o}>
            {text(o)}
          </option>
        ))}
      </select>
    </label>
  );
}

export function FaultForm({ form, providers, pending, onSubmit }: { form: TFaultForm; providers: TProviderOption[]; pending: boolean; onSubmit: () => void }) {
  const submit = (e: FormEvent) => {
    e.preventDefault();
    onSubmit();
  };
  const { kind } = form;
  return (
    <form onSubmit={submit} className="flex flex-wrap items-end gap-3 p-3 text-sm">
      <Choice
        label="Provider"
        value={form.provider}
        options={providers.map((p) => p.key)}
        text={(k) => k}
        onChange={form.setProvider}
        testId="chaos-provider"
      />
      <Choice label="Region" value={form.effectiveRegion} options={form.regions} text={(r) => r} onChange={form.setRegion} testId="chaos-region" />
      <Choice
        label="Fault"
        value={kind}
        options={FAULT_KINDS}
        text={(k) => FAULT_KIND_LABELS[k]}
        onChange={(v) => form.chooseKind(v as TFaultKind)}
        testId="chaos-kind"
      />
      {kind !== "outage" && (
        <label className="flex flex-col gap-1" title={MAGNITUDE_HELP[kind]}>
          {kind === "latency" ? "Multiplier" : "Share (0–1]"}
          <input
            className="field w-24"
            type="number"
            step="0.05"
            min="0"
            value={form.magnitude}
            onChange={(e) => form.setMagnitude(e.target.value)}
            data-testid="chaos-magnitude"
          />
        </label>
      )}
      <Choice
        label="For"
        value={form.duration}
        options={DURATIONS}
        text={(d) => (d < 60 ? `${d} s` : `${d / 60} min`)}
        onChange={(v) => form.setDuration(Number(v))}
        testId="chaos-duration"
      />
      <button type="submit" className="btn btn-danger" disabled={pending || !form.provider || !form.effectiveRegion} data-testid="chaos-inject">
        Inject
      </button>
      <span className="muted text-xs">{MAGNITUDE_HELP[kind]}</span>
    </form>
  );
}

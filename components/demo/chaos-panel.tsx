"use client";

import Link from "next/link";
import { useState, type FormEvent } from "react";
import { useMutation, useQuery, useQueryClient } from "@tanstack/react-query";
import { controlRequest } from "@/components/providers/control-request";
import { FAULT_KINDS, FAULT_KIND_LABELS, defaultMagnitude, type TFaultKind } from "@/lib/demo/fault-model";
import type { TFaultRow } from "@/lib/demo/to-fault";

type TProviderOption = { key: string; regions: string[] };

const DURATIONS = [30, 60, 120, 300, 600];

const MAGNITUDE_HELP: Record<TFaultKind, string> = {
  outage: "every call fails (HTTP 503 or timeout)",
  latency: "latency multiplier",
  completion_drop: "share of flows that never complete (calls still succeed)",
  quota_cut: "share of calls refused with HTTP 429",
};

function describe(f: TFaultRow): string {
  if (f.kind === "outage") return FAULT_KIND_LABELS.outage;
  if (f.kind === "latency") return `latency ×${f.magnitude}`;
  return `${FAULT_KIND_LABELS[f.kind]} ${Math.round(f.magnitude * 100)}%`;
}

const fmtTime = (ms: number) => new Date(ms).toLocaleTimeString(undefined, { hour12: false });

/**
 * Degrade a simulated provider in one region and watch Switchyard react on the overview. The
 * faults live in the demo_fault table: the simulator reads them, the overview marks them.
 */
export function ChaosPanel({ providers }: { providers: TProviderOption[] }) {
  const qc = useQueryClient();
  const [provider, setProvider] = useState(providers.find((p) => p.key === "provider_A")?.key ?? providers[0]?.key ?? "");
  const regions = providers.find((p) => p.key === provider)?.regions ?? [];
  const [region, setRegion] = useState("EU");
  const [kind, setKind] = useState<TFaultKind>("outage");
  const [magnitude, setMagnitude] = useState(String(defaultMagnitude("outage")));
  const [duration, setDuration] = useState(120);
  const [error, setError] = useState<string | null>(null);
  const effectiveRegion = regions.includes(region) ? region : (regions[0] ?? "");

  const faults = useQuery({
    queryKey: ["demo-faults"],
    queryFn: async () => {
      const res = await fetch("/api/demo/faults", { cache: "no-store" });
      if (!res.ok) throw new Error(`HTTP ${res.status}`);
      return (await res.json()) as { faults: TFaultRow[]; now: number };
    },
    refetchInterval: 2_000,
  });

  const inject = useMutation({
    mutationFn: async () => {
      const body = { provider, region: effectiveRegion, kind, durationSeconds: duration, ...(kind === "outage" ? {} : { magnitude: Number(magnitude) }) };
      const r = await controlRequest<{ fault: TFaultRow }>("/api/demo/faults", "POST", body);
      if (!r.ok) throw new Error(r.error.fields.length > 0 ? r.error.fields.map((f) => `${f.path}: ${f.message}`).join("; ") : r.error.message);
      return r.value.fault;
    },
    onSuccess: () => {
      setError(null);
      void qc.invalidateQueries({ queryKey: ["demo-faults"] });
    },
    onError: (e) => setError(e instanceof Error ? e.message : String(e)),
  });

  const end = useMutation({
    mutationFn: async (id: string) => {
      const r = await controlRequest(`/api/demo/faults/${id}/end`, "POST");
      if (!r.ok) throw new Error(r.error.message);
    },
    onSettled: () => void qc.invalidateQueries({ queryKey: ["demo-faults"] }),
    onError: (e) => setError(e instanceof Error ? e.message : String(e)),
  });

  const onSubmit = (e: FormEvent) => {
    e.preventDefault();
    inject.mutate();
  };
  const now = faults.data?.now ?? 0;
  const list = faults.data?.faults ?? [];

  return (
    <div className="flex flex-col gap-4" data-testid="chaos-panel">
      <section className="panel">
        <div className="panel-title">Inject a provider fault</div>
        <p className="muted px-3 pt-2 text-xs">
          The demo&apos;s simulated services call the real decide and outcome APIs; a fault changes what the simulated provider answers in that region. Switchyard only sees
          the outcomes. Watch the{" "}
          <Link className="underline" href={`/?operation=SEND_SMS&region=${effectiveRegion}`}>
            overview
          </Link>{" "}
          while it runs.
        </p>
        <form onSubmit={onSubmit} className="flex flex-wrap items-end gap-3 p-3 text-sm">
          <label className="flex flex-col gap-1">
            Provider
            <select className="field" value={provider} onChange={(e) => setProvider(e.target.value)} data-testid="chaos-provider">
              {providers.map((p) => (
                <option key={p.key} value={p.key}>
                  {p.key}
                </option>
              ))}
            </select>
          </label>
          <label className="flex flex-col gap-1">
            Region
            <select className="field" value={effectiveRegion} onChange={(e) => setRegion(e.target.value)} data-testid="chaos-region">
              {regions.map((r) => (
                <option key={r} value={r}>
                  {r}
                </option>
              ))}
            </select>
          </label>
          <label className="flex flex-col gap-1">
            Fault
            <select
              className="field"
              value={kind}
              onChange={(e) => {
                const k = e.target.value as TFaultKind;
                setKind(k);
                setMagnitude(String(defaultMagnitude(k)));
              }}
              data-testid="chaos-kind"
            >
              {FAULT_KINDS.map((k) => (
                <option key={k} value={k}>
                  {FAULT_KIND_LABELS[k]}
                </option>
              ))}
            </select>
          </label>
          {kind !== "outage" && (
            <label className="flex flex-col gap-1" title={MAGNITUDE_HELP[kind]}>
              {kind === "latency" ? "Multiplier" : "Share (0–1]"}
              <input className="field w-24" type="number" step="0.05" min="0" value={magnitude} onChange={(e) => setMagnitude(e.target.value)} data-testid="chaos-magnitude" />
            </label>
          )}
          <label className="flex flex-col gap-1">
            For
            <select className="field" value={duration} onChange={(e) => setDuration(Number(e.target.value))} data-testid="chaos-duration">
              {DURATIONS.map((d) => (
                <option key={d} value={d}>
                  {d < 60 ? `${d} s` : `${d / 60} min`}
                </option>
              ))}
            </select>
          </label>
          <button type="submit" className="btn btn-danger" disabled={inject.isPending || !provider || !effectiveRegion} data-testid="chaos-inject">
            Inject
          </button>
          <span className="muted text-xs">{MAGNITUDE_HELP[kind]}</span>
        </form>
        {error && (
          <p role="alert" className="px-3 pb-3 text-sm" style={{ color: "var(--bad)" }}>
            {error}
          </p>
        )}
      </section>

      <section className="panel">
        <div className="panel-title">Faults (last hour)</div>
        <table className="w-full text-sm" data-testid="chaos-faults">
          <thead>
            <tr className="muted text-left text-xs">
              <th className="px-3 py-1">provider</th>
              <th>region</th>
              <th>fault</th>
              <th>from</th>
              <th>until</th>
              <th>by</th>
              <th />
            </tr>
          </thead>
          <tbody>
            {list.length === 0 && (
              <tr>
                <td colSpan={7} className="muted px-3 py-2">
                  No faults yet.
                </td>
              </tr>
            )}
            {list.map((f) => {
              const active = f.startsAt <= now && now < f.endsAt;
              return (
                <tr key={f.id} data-testid={`fault-${f.id}`} data-active={active}>
                  <td className="mono px-3 py-1">{f.provider}</td>
                  <td className="mono">{f.region}</td>
                  <td>{describe(f)}</td>
                  <td className="mono">{fmtTime(f.startsAt)}</td>
                  <td className="mono">
                    {fmtTime(f.endsAt)}
                    {f.endedAt !== null ? " (ended early)" : ""}
                  </td>
                  <td className="muted">{f.createdBy}</td>
                  <td className="pr-3 text-right">
                    {active ? (
                      <button type="button" className="btn" disabled={end.isPending} onClick={() => end.mutate(f.id)} data-testid="chaos-end">
                        End now
                      </button>
                    ) : (
                      <span className="muted text-xs">over</span>
                    )}
                  </td>
                </tr>
              );
            })}
          </tbody>
        </table>
      </section>
    </div>
  );
}

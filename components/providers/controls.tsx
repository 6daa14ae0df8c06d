"use client";

import { useRouter } from "next/navigation";
import { createContext, useCallback, useContext, useMemo, useState, type ReactNode } from "react";
import type { TOverrideRow } from "@/lib/console/types";
import type { TTrafficShareRow } from "@/lib/console/list-traffic-shares";
import { DataTable } from "../data-table";
import { age, pct, utc } from "../format";
import { ControlErrorView } from "./control-error";
import { controlRequest, type TControlError } from "./control-request";
import { ConfirmDialog } from "./dialog";

type TKind = TOverrideRow["kind"];

export type TControlsData = {
  providers: { key: string; regions: string[] }[];
  operations: { key: string; regions: string[] }[];
  shares: TTrafficShareRow[];
  sharesAt: number;
  canCreate: boolean;
  canEnd: boolean;
};

type TDraft = { kind: TKind; provider: string | null; operation: string; region: string };

const ALL = "";
const MIN_REASON = 3; // governance's ZCreateOverrideBody / ZEndOverrideBody minimum
const EXPIRY_CHOICES = [
  { label: "no expiry", minutes: 0 },
  { label: "15 min", minutes: 15 },
  { label: "1 hour", minutes: 60 },
  { label: "4 hours", minutes: 240 },
  { label: "24 hours", minutes: 1440 },
  { label: "7 days", minutes: 10_080 },
] as const;

const KIND_LABEL: Record<TKind, string> = { provider_kill: "Kill", provider_pin: "Pin", routing_kill_switch: "Routing kill switch" };

const Ctx = createContext<{ data: TControlsData; open: (d: TDraft) => void } | null>(null);

function useControls() {
  const c = useContext(Ctx);
  if (!c) throw new Error("useControls outside ProviderControls");
  return c;
}

/**
 * Which (operation, region) pairs an override touches and what share the provider carries in each
 * now. A kill removes that share; a pin takes the rest; the routing kill switch freezes every
 * provider's share of the operation to the static priority order.
 */
function blastRadius(data: TControlsData, d: TDraft): TTrafficShareRow[] {
  return data.shares.filter(
    (s) =>
      (d.kind === "routing_kill_switch" || s.provider === d.provider) &&
      (d.operation === ALL || s.operation === d.operation) &&
      (d.region === ALL || s.region === d.region),
  );
}

/** Scope (operation, region), reason and expiry of the override being drafted. */
function OverrideFields({
  d,
  setD,
  regions,
  operationRequired,
  reason,
  setReason,
  expiry,
  setExpiry,
}: {
  d: TDraft;
  setD: (d: TDraft) => void;
  regions: string[];
  operationRequired: boolean;
  reason: string;
  setReason: (r: string) => void;
  expiry: number;
  setExpiry: (m: number) => void;
}) {
  const { data } = useControls();
  return (
    <div className="grid grid-cols-[110px_1fr] items-center gap-x-3 gap-y-2 text-sm">
      <label htmlFor="ov-operation" className="muted">
        Operation
      </label>
      <select
        id="ov-operation"
        className="field"
        value={d.operation}
        onChange={(e) => setD({ ...d, operation: e.target.value, region: ALL })}
        data-testid="override-operation"
      >
        {operationRequired ? null : <option value={ALL}>all operations</option>}
        {operationRequired && d.operation === ALL ? <option value={ALL}>choose…</option> : null}
        {data.operations.map((o) => (
          <option key={o.key} value={o.key}>
            {o.key}
          </option>
        ))}
      </select>
      <label htmlFor="ov-region" className="muted">
        Region
      </label>
      <select id="ov-region" className="field" value={d.region} onChange={(e) => setD({ ...d, region: e.target.value })} data-testid="override-region">
        <option value={ALL}>all regions</option>
        {regions.map((r) => (
          <option key={r} value={r}>
            {r}
          </option>
        ))}
      </select>
      <label htmlFor="ov-reason" className="muted">
        Reason
      </label>
      <textarea
        id="ov-reason"
        className="field"
        rows={2}
        value={reason}
        onChange={(e) => setReason(e.target.value)}
        placeholder="required: on-call reads it during the incident"
        data-testid="override-reason"
      />
      <label htmlFor="ov-expiry" className="muted">
        Expires
      </label>
      <select id="ov-expiry" className="field" value={expiry} onChange={(e) => setExpiry(Number(e.target.value))} data-testid="override-expiry">
        {EXPIRY_CHOICES.map((c) => (
          <option key={c.minutes} value={c.minutes}>
            {c.minutes === 0 ? c.label : `in ${c.label}`}
          </option>
        ))}
      </select>
    </div>
  );
}

/** What the override would touch: each (operation, region, provider) share now and after. */
function BlastRadius({ d, radius, operationRequired }: { d: TDraft; radius: TTrafficShareRow[]; operationRequired: boolean }) {
  const { data } = useControls();
  return (
    <section className="panel" aria-label="Blast radius" data-testid="blast-radius">
      <h3 className="panel-title">
        Blast radius <span className="muted font-normal">· current shares as of {utc(data.sharesAt)}</span>
      </h3>
      <div style={{ maxHeight: 180, overflowY: "auto" }}>
        <table className="dense">
          <thead>
            <tr>
              <th>Operation</th>
              <th>Region</th>
              <th>Provider</th>
              <th>Share now</th>
              <th>After</th>
            </tr>
          </thead>
          <tbody>
            {radius.length === 0 ? (
              <tr>
                <td colSpan={5} className="muted">
                  {operationRequired && d.operation === ALL ? "Choose an operation." : "No traffic share in this scope yet: nothing routes here now."}
                </td>
              </tr>
            ) : (
              radius.map((s) => (
                <tr key={`${s.operation}|${s.region}|${s.provider}`}>
                  <td className="mono">{s.operation}</td>
                  <td className="mono">{s.region}</td>
                  <td className="mono">{s.provider}</td>
                  <td className="mono">{pct(s.share)}</td>
                  <td className="mono muted">
                    {d.kind === "provider_kill" ? "0% (excluded)" : d.kind === "provider_pin" ? "100% (pinned)" : "static priority order"}
                  </td>
                </tr>
              ))
            )}
          </tbody>
        </table>
      </div>
      <p className="muted px-3 py-2 text-xs">
        {radius.length > 0
          ? `${new Set(radius.map((s) => s.operation)).size} operation(s), ${new Set(radius.map((s) => s.region)).size} region(s) affected.`
          : null}{" "}
        Effective on every instance as soon as it is saved.
      </p>
    </section>
  );
}

function OverrideDialog({ draft, onClose }: { draft: TDraft; onClose: () => void }) {
  const { data } = useControls();
  const router = useRouter();
  const [d, setD] = useState(draft);
  const [reason, setReason] = useState("");
  const [expiry, setExpiry] = useState(0);
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<TControlError | null>(null);
  const radius = blastRadius(data, d);
  const operationRequired = d.kind !== "provider_kill";
  const regions =
    d.operation === ALL ? [...new Set(data.operations.flatMap((o) => o.regions))].sort() : (data.operations.find((o) => o.key === d.operation)?.regions ?? []);
  const canSubmit = reason.trim().length >= MIN_REASON && (!operationRequired || d.operation !== ALL);

  const confirm = async () => {
    setBusy(true);
    setError(null);
    const body = {
      kind: d.kind,
      ...(d.kind === "routing_kill_switch" ? {} : { providerKey: d.provider }),
      ...(d.operation === ALL ? {} : { operationKey: d.operation }),
      ...(d.region === ALL ? {} : { region: d.region }),
      reason: reason.trim(),
      ...(expiry > 0 ? { expiresAt: new Date(Date.now() + expiry * 60_000).toISOString() } : {}),
    };
    const res = await controlRequest("/api/control/overrides", "POST", body);
    setBusy(false);
    if (!res.ok) return setError(res.error);
    onClose();
    router.refresh();
  };

  const subject = d.kind === "routing_kill_switch" ? `adaptive routing for ${d.operation || "…"}` : d.provider;
  return (
    <ConfirmDialog
      title={`${KIND_LABEL[d.kind]} · ${subject}`}
      open
      onClose={onClose}
      onConfirm={confirm}
      canSubmit={canSubmit}
      busy={busy}
      confirmLabel={d.kind === "provider_pin" ? "Pin provider" : d.kind === "provider_kill" ? "Kill provider" : "Turn adaptive routing off"}
      danger={d.kind !== "provider_pin"}
    >
      <OverrideFields
        d={d}
        setD={setD}
        regions={regions}
        operationRequired={operationRequired}
        reason={reason}
        setReason={setReason}
        expiry={expiry}
        setExpiry={setExpiry}
      />
      <BlastRadius d={d} radius={radius} operationRequired={operationRequired} />
      <ControlErrorView error={error} />
    </ConfirmDialog>
  );
}

function EndDialog({ override, onClose }: { override: TOverrideRow; onClose: () => void }) {
  const router = useRouter();
  const [reason, setReason] = useState("");
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<TControlError | null>(null);
  const confirm = async () => {
    setBusy(true);
    setError(null);
    const res = await controlRequest(`/api/control/overrides/${override.id}/end`, "POST", { reason: reason.trim() });
    setBusy(false);
    if (!res.ok) return setError(res.error);
    onClose();
    router.refresh();
  };
  return (
    <ConfirmDialog
      title={`End ${KIND_LABEL[override.kind].toLowerCase()} · ${override.provider ?? override.operation ?? ""}`}
      open
      onClose={onClose}
      onConfirm={confirm}
      canSubmit={reason.trim().length >= MIN_REASON}
      busy={busy}
      confirmLabel="End override"
    >
      <p className="text-sm">
        Scope: <span className="mono">{override.operation ?? "all operations"}</span> · <span className="mono">{override.region ?? "all regions"}</span>.
        Created for: {override.reason}
      </p>
      <label className="flex flex-col gap-1 text-sm">
        <span className="muted">Why it ends</span>
        <textarea className="field" rows={2} value={reason} onChange={(e) => setReason(e.target.value)} placeholder="required" data-testid="end-reason" />
      </label>
      <ControlErrorView error={error} />
    </ConfirmDialog>
  );
}

/** Holds the dialog state for the whole providers page, so row buttons and panels share one dialog. */
export function ProviderControls({ data, children }: { data: TControlsData; children: ReactNode }) {
  const [draft, setDraft] = useState<TDraft | null>(null);
  const close = useCallback(() => setDraft(null), []);
  const value = useMemo(() => ({ data, open: setDraft }), [data]);
  return (
    <Ctx.Provider value={value}>
      {children}
      {draft ? <OverrideDialog key={JSON.stringify(draft)} draft={draft} onClose={close} /> : null}
    </Ctx.Provider>
  );
}

export function ProviderRowActions({ provider }: { provider: string }) {
  const { data, open } = useControls();
  if (!data.canCreate) return null;
  return (
    <span className="flex gap-1">
      <button
        type="button"
        className="btn btn-danger"
        onClick={() => open({ kind: "provider_kill", provider, operation: ALL, region: ALL })}
        data-testid={`kill-${provider}`}
      >
        Kill…
      </button>
      <button
        type="button"
        className="btn"
        onClick={() => open({ kind: "provider_pin", provider, operation: data.operations[0]?.key ?? ALL, region: ALL })}
        data-testid={`pin-${provider}`}
      >
        Pin…
      </button>
    </span>
  );
}

/** Per operation: adaptive routing on, or off (static priority order) by an active kill switch. */
export function KillSwitchPanel({ overrides }: { overrides: TOverrideRow[] }) {
  const { data, open } = useControls();
  return (
    <section className="panel" aria-label="Routing kill switch">
      <h2 className="panel-title">
        Routing kill switch <span className="muted font-normal">· adaptive off → the factor list&apos;s static priority order</span>
      </h2>
      <DataTable columns={["Operation", "Adaptive routing", ""]} empty="No operation exists yet." testId="routing-kill-switch">
        {data.operations.map((o) => {
          const switches = overrides.filter((v) => v.kind === "routing_kill_switch" && v.operation === o.key);
          return (
            <tr key={o.key}>
              <td className="mono">{o.key}</td>
              <td style={{ color: switches.length > 0 ? "var(--bad)" : "var(--ok)" }}>
                {switches.length === 0 ? "on" : `off in ${switches.map((s) => s.region ?? "all regions").join(", ")}`}
              </td>
              <td style={{ width: 1 }}>
                {data.canCreate ? (
                  <button
                    type="button"
                    className="btn btn-danger"
                    onClick={() => open({ kind: "routing_kill_switch", provider: null, operation: o.key, region: ALL })}
                    data-testid={`kill-switch-${o.key}`}
                  >
                    Turn adaptive off…
                  </button>
                ) : null}
              </td>
            </tr>
          );
        })}
      </DataTable>
    </section>
  );
}

export function OverridesPanel({ overrides, now }: { overrides: TOverrideRow[]; now: number }) {
  const { data } = useControls();
  const [ending, setEnding] = useState<TOverrideRow | null>(null);
  const close = useCallback(() => setEnding(null), []);
  return (
    <section className="panel" aria-label="Active overrides">
      <h2 className="panel-title">Active overrides</h2>
      <DataTable
        columns={["Kind", "Provider", "Operation", "Region", "Reason", "Created", "Expires", ""]}
        empty="No override is active: routing is fully adaptive."
        testId="overrides-table"
      >
        {overrides.map((o) => (
          <tr key={o.id} data-testid={`override-${o.kind}-${o.provider ?? o.operation ?? "all"}`}>
            <td style={{ color: o.kind === "provider_pin" ? "var(--warn)" : "var(--bad)" }}>{KIND_LABEL[o.kind]}</td>
            <td className="mono">{o.provider ?? "–"}</td>
            <td className="mono">{o.operation ?? "all"}</td>
            <td className="mono">{o.region ?? "all"}</td>
            <td style={{ whiteSpace: "normal" }}>{o.reason}</td>
            <td className="mono" title={utc(o.createdAt)}>
              {age(o.createdAt, now)}
            </td>
            <td className="mono">{o.expiresAt ? utc(o.expiresAt) : "never"}</td>
            <td style={{ width: 1 }}>
              {data.canEnd ? (
                <button type="button" className="btn" onClick={() => setEnding(o)} data-testid="end-override">
                  End…
                </button>
              ) : null}
            </td>
          </tr>
        ))}
      </DataTable>
      {ending ? <EndDialog override={ending} onClose={close} /> : null}
    </section>
  );
}

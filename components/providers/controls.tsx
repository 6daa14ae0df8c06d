"use client";

import { useRouter } from "next/navigation";
import { createContext, useCallback, useContext, useMemo, useState, type ReactNode } from "react";
import type { TOverrideRow } from "@/lib/console/types";
import type { TTrafficShareRow } from "@/lib/console/traffic/list-traffic-shares";
import { DataTable } from "../data-table";
import { age, utc } from "../format";
import { ControlErrorView } from "./control-error";
import { controlRequest, type TControlError } from "./control-request";
import { BlastRadius, computeBlastRadius, type TStaticOrder } from "./blast-radius";
import { ConfirmDialog } from "./dialog";

type TKind = TOverrideRow["kind"];

export type TControlsData = {
  providers: { key: string; regions: string[] }[];
  operations: { key: string; regions: string[] }[];
  shares: TTrafficShareRow[];
  sharesAt: number;
  canCreate: boolean;
  canEnd: boolean;
  /** The operation and region the page is looking at (query string), the defaults of a new pin. */
  view: { operation: string | null; region: string | null };
  pinMaxMinutes: number;
  /** Priority orders and breakers, so the kill switch's preview shows where static order sends traffic. */
  staticOrder?: TStaticOrder;
};

type TDraft = { kind: TKind; provider: string | null; operation: string; region: string };

const ALL = "";
const MIN_REASON = 3; // governance's ZCreateOverrideBody / ZEndOverrideBody minimum
// No "no expiry": an override set from the console during an incident is forgotten once it is over,
// and keeps routing around a recovered provider (the API still accepts one without expiresAt).
const EXPIRY_CHOICES = [
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
 * Where a pin from a provider's row starts: the operation and region in view when the provider
 * serves them, else the first operation whose traffic it carries (or could carry), never an
 * operation it has nothing to do with.
 */
function pinScope(data: TControlsData, provider: string): { operation: string; region: string } {
  const regions = data.providers.find((p) => p.key === provider)?.regions ?? [];
  // Shares can outlive their operation (a deleted operation's rows stay): only catalogue operations are offered.
  const known = new Set(data.operations.map((o) => o.key));
  const carries = [...new Set(data.shares.filter((s) => s.provider === provider && known.has(s.operation)).map((s) => s.operation))];
  const could = data.operations.filter((o) => o.regions.some((r) => regions.includes(r))).map((o) => o.key);
  const candidates = carries.length > 0 ? carries : could;
  const inView = data.view.operation && candidates.includes(data.view.operation) ? data.view.operation : null;
  const operation = inView ?? carries[0] ?? could[0] ?? ALL;
  const region = data.view.region && regions.includes(data.view.region) ? data.view.region : ALL;
  return { operation, region };
}

/** The expiry choices a draft offers: every override ends by itself; a pin within the configured maximum. */
function expiryChoices(kind: TKind, maxPinMinutes: number) {
  const bounded = EXPIRY_CHOICES.filter((c) => (kind === "provider_pin" ? c.minutes <= maxPinMinutes : true));
  return bounded.length > 0 ? bounded : [{ label: `${maxPinMinutes} min`, minutes: maxPinMinutes }];
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
  const choices = expiryChoices(d.kind, data.pinMaxMinutes);
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
        {choices.map((c) => (
          <option key={c.minutes} value={c.minutes}>
            in {c.label}
          </option>
        ))}
      </select>
    </div>
  );
}

function OverrideDialog({ draft, onClose }: { draft: TDraft; onClose: () => void }) {
  const { data } = useControls();
  const router = useRouter();
  const [d, setD] = useState(draft);
  const [reason, setReason] = useState("");
  // One hour unless chosen otherwise: an override nobody remembers keeps routing around a recovered provider.
  const [expiry, setExpiry] = useState(() =>
    expiryChoices(draft.kind, data.pinMaxMinutes).some((c) => c.minutes === 60) ? 60 : expiryChoices(draft.kind, data.pinMaxMinutes)[0]!.minutes,
  );
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<TControlError | null>(null);
  const radius = computeBlastRadius(data.shares, new Map(data.providers.map((p) => [p.key, p.regions])), d, data.staticOrder);
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
      expiresAt: new Date(Date.now() + expiry * 60_000).toISOString(),
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
      <BlastRadius
        rows={radius}
        sharesAt={data.sharesAt}
        emptyText={operationRequired && d.operation === ALL ? "Choose an operation." : "No traffic share in this scope yet: nothing routes here now."}
      />
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
        onClick={() => open({ kind: "provider_pin", provider, ...pinScope(data, provider) })}
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
      <DataTable columns={["Operation", "Adaptive routing"]} empty="No operation exists yet." testId="routing-kill-switch">
        {data.operations.map((o) => {
          const switches = overrides.filter((v) => v.kind === "routing_kill_switch" && v.operation === o.key);
          // The action sits beside the operation's key, so a phone reaches it without scrolling the table sideways.
          return (
            <tr key={o.key}>
              <td>
                <div className="flex flex-wrap items-center gap-2">
                  <span className="mono">{o.key}</span>
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
                </div>
              </td>
              <td style={{ color: switches.length > 0 ? "var(--bad)" : "var(--ok)" }}>
                {switches.length === 0 ? "on" : `off in ${switches.map((s) => s.region ?? "all regions").join(", ")}`}
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

/**
 * An incident's actions: kill the failing provider, pin the one carrying the traffic, or turn
 * adaptive routing off, each starting from the incident's operation, region and provider.
 */
export function IncidentActions({
  operation,
  region,
  provider,
  alternatives,
}: {
  operation: string;
  region: string;
  provider: string | null;
  alternatives: string[];
}) {
  const { data, open } = useControls();
  if (!data.canCreate) return <p className="muted text-sm">Your role cannot set overrides.</p>;
  return (
    <div className="flex flex-wrap gap-2">
      {provider ? (
        <button
          type="button"
          className="btn btn-danger"
          onClick={() => open({ kind: "provider_kill", provider, operation, region })}
          data-testid="incident-kill"
        >
          Kill {provider} in {region}…
        </button>
      ) : null}
      {alternatives.map((p) => (
        <button
          key={p}
          type="button"
          className="btn"
          onClick={() => open({ kind: "provider_pin", provider: p, operation, region })}
          data-testid={`incident-pin-${p}`}
        >
          Pin {p}…
        </button>
      ))}
      <button
        type="button"
        className="btn btn-danger"
        onClick={() => open({ kind: "routing_kill_switch", provider: null, operation, region })}
        data-testid="incident-kill-switch"
      >
        Turn adaptive off in {region}…
      </button>
    </div>
  );
}

"use client";

import { useActionState, useState, type ReactNode } from "react";
import type { TActionResult } from "@/lib/auth/with-action-permission";
import { Field, FieldError, FormProblem } from "@/components/form-feedback";
import {
  approveCatalogChangeAction,
  rejectCatalogChangeAction,
  saveAdapterAction,
  saveGatewayLimitsAction,
  saveOperationAction,
  saveProviderAction,
  setProviderEnabledAction,
} from "./actions";

export type TState = TActionResult<{ status: string }> | null;

export const inputStyle = { borderColor: "var(--border)" };
const ADAPTER_KINDS = ["http_json", "openai_chat", "anthropic_messages", "gemini_generate"] as const;
const CRITICALITIES = ["low", "medium", "high", "critical"] as const;

export function Outcome({ state }: { state: TState }) {
  if (!state?.ok) return null;
  const text =
    state.value.status === "pending"
      ? "Saved as a pending change: it moves compliance or decides where a credential and callers' data go, so someone else in the compliance role must approve it."
      : state.value.status === "unchanged"
        ? "Nothing changed."
        : `Done (${state.value.status}).`;
  return (
    <p className="text-xs" data-testid="form-outcome" data-status={state.value.status}>
      {text}
    </p>
  );
}

export function Submit({ pending, children }: { pending: boolean; children: ReactNode }) {
  return (
    <button type="submit" disabled={pending} className="self-end rounded px-3 py-1 text-sm" style={{ background: "var(--accent)", color: "var(--panel)" }}>
      {children}
    </button>
  );
}

export type TProviderFormValue = {
  key: string;
  displayName: string;
  regions: string[];
  certifications: string[];
  costPerRequest: number;
  costPerInputToken1k: number | null;
  costPerOutputToken1k: number | null;
  quotas: unknown[];
  credentialRef: string | null;
  enabled: boolean;
};

const PROVIDER_FIELDS = [
  "key",
  "displayName",
  "regions",
  "certifications",
  "costPerRequest",
  "costPerInputToken1k",
  "costPerOutputToken1k",
  "quotas",
  "quotaReason",
  "credentialRef",
  "enabled",
];

export function ProviderForm({ value }: { value?: TProviderFormValue }) {
  const [state, action, pending] = useActionState(saveProviderAction, null as TState);
  const id = value ? `provider-form-${value.key}` : "provider-form-new";
  return (
    <form action={action} className="flex flex-col gap-2 p-3" data-testid={id}>
      <input type="hidden" name="original" value={value?.key ?? ""} />
      <div className="flex flex-wrap items-start gap-3">
        <Field label="key" name="key" state={state}>
          <input name="key" defaultValue={value?.key} placeholder="twilio" className="mono rounded border px-2 py-1" style={inputStyle} />
        </Field>
        <Field label="display name" name="displayName" state={state}>
          <input name="displayName" defaultValue={value?.displayName} placeholder="Twilio" className="rounded border px-2 py-1" style={inputStyle} />
        </Field>
        <Field label="regions (comma-separated)" name="regions" state={state}>
          <input name="regions" defaultValue={value?.regions.join(", ")} placeholder="EU, NA" className="rounded border px-2 py-1" style={inputStyle} />
        </Field>
        <Field label="certifications" name="certifications" state={state}>
          <input
            name="certifications"
            defaultValue={value?.certifications.join(", ")}
            placeholder="gdpr, soc2"
            className="rounded border px-2 py-1"
            style={inputStyle}
          />
        </Field>
        <Field label="cost per request" name="costPerRequest" state={state}>
          <input
            name="costPerRequest"
            defaultValue={value?.costPerRequest ?? ""}
            placeholder="0.0079"
            className="w-24 rounded border px-2 py-1"
            style={inputStyle}
          />
        </Field>
        <Field label="per 1k input tokens" name="costPerInputToken1k" state={state}>
          <input name="costPerInputToken1k" defaultValue={value?.costPerInputToken1k ?? ""} className="w-24 rounded border px-2 py-1" style={inputStyle} />
        </Field>
        <Field label="per 1k output tokens" name="costPerOutputToken1k" state={state}>
          <input name="costPerOutputToken1k" defaultValue={value?.costPerOutputToken1k ?? ""} className="w-24 rounded border px-2 py-1" style={inputStyle} />
        </Field>
        <Field label="credential reference" name="credentialRef" state={state}>
          <input
            name="credentialRef"
            defaultValue={value?.credentialRef ?? ""}
            placeholder="env:TWILIO_TOKEN"
            className="mono rounded border px-2 py-1"
            style={inputStyle}
          />
        </Field>

        <label className="flex items-center gap-1 self-end text-sm">
          <input type="checkbox" name="enabled" defaultChecked={value?.enabled ?? true} /> enabled
        </label>
        <Submit pending={pending}>{value ? "Save" : "Add provider"}</Submit>
      </div>
      <QuotaFields initial={(value?.quotas ?? []) as TQuotaRow[]} state={state} askReason={Boolean(value)} />
      <Outcome state={state} />
      <FormProblem state={state} shown={PROVIDER_FIELDS} />
    </form>
  );
}

type TQuotaRow = { unit: string; limit: number | string; windowSeconds: number | string; reset?: string };

const QUOTA_UNIT_CHOICES = ["requests", "tokens"] as const;

/**
 * A provider's quotas as one row of fields each (unit, limit, window, reset), instead of JSON to
 * type; rows can be added and removed. Editing an existing provider asks why the quotas change:
 * the server refuses a quota change without a reason (quotaReason) and keeps it in the audit log.
 */
function QuotaFields({ initial, state, askReason }: { initial: TQuotaRow[]; state: TState; askReason: boolean }) {
  const [rows, setRows] = useState<TQuotaRow[]>(initial.map((q) => ({ ...q })));
  const set = (i: number, patch: Partial<TQuotaRow>) => setRows(rows.map((r, j) => (j === i ? { ...r, ...patch } : r)));
  return (
    <fieldset className="flex flex-col gap-1 text-xs" data-testid="quota-fields">
      <legend className="muted">quotas (a provider&apos;s own limits; none = unlimited)</legend>
      <input type="hidden" name="quotaFields" value="rows" />
      {rows.map((r, i) => (
        <div key={i} className="flex flex-wrap items-end gap-2" data-testid={`quota-row-${i}`}>
          <label className="flex flex-col gap-0.5">
            <span className="muted">unit</span>
            <select name="quotaUnit" value={r.unit} onChange={(e) => set(i, { unit: e.target.value })} className="rounded border px-2 py-1" style={inputStyle}>
              {QUOTA_UNIT_CHOICES.map((u) => (
                <option key={u}>{u}</option>
              ))}
            </select>
          </label>
          <label className="flex flex-col gap-0.5">
            <span className="muted">limit</span>
            <input
              name="quotaLimit"
              inputMode="numeric"
              value={r.limit}
              onChange={(e) => set(i, { limit: e.target.value })}
              className="w-28 rounded border px-2 py-1"
              style={inputStyle}
            />
          </label>
          <label className="flex flex-col gap-0.5">
            <span className="muted">per (seconds)</span>
            <input
              name="quotaWindowSeconds"
              inputMode="numeric"
              value={r.windowSeconds}
              onChange={(e) => set(i, { windowSeconds: e.target.value })}
              className="w-24 rounded border px-2 py-1"
              style={inputStyle}
            />
          </label>
          <label className="flex flex-col gap-0.5">
            <span className="muted">window</span>
            <select
              name="quotaReset"
              value={r.reset ?? "rolling"}
              onChange={(e) => set(i, { reset: e.target.value })}
              className="rounded border px-2 py-1"
              style={inputStyle}
            >
              <option value="rolling">rolling</option>
              <option value="fixed">fixed</option>
            </select>
          </label>
          <button type="button" className="btn" onClick={() => setRows(rows.filter((_, j) => j !== i))} aria-label={`Remove quota ${i + 1}`}>
            Remove
          </button>
          <FieldError state={state} name={`quotas.${i}`} />
        </div>
      ))}
      <button type="button" className="btn self-start" onClick={() => setRows([...rows, { unit: "requests", limit: "", windowSeconds: 60, reset: "rolling" }])}>
        Add a quota
      </button>
      {askReason ? (
        <Field label="why the quotas change (required when they do)" name="quotaReason" state={state}>
          <input name="quotaReason" className="rounded border px-2 py-1" style={inputStyle} data-testid="quota-reason" />
        </Field>
      ) : null}
    </fieldset>
  );
}

export function ProviderEnabledButton({ providerKey, enabled }: { providerKey: string; enabled: boolean }) {
  const [state, action, pending] = useActionState(setProviderEnabledAction, null as TState);
  return (
    <form action={action} data-testid={`toggle-${providerKey}`}>
      <input type="hidden" name="key" value={providerKey} />
      <input type="hidden" name="enabled" value={enabled ? "0" : "1"} />
      <button type="submit" disabled={pending} className="text-xs underline">
        {enabled ? "Disable" : "Enable"}
      </button>
      <Outcome state={state} />
      <FormProblem state={state} shown={[]} />
    </form>
  );
}

export type TOperationFormValue = { key: string; description: string; criticality: string; regionRequirements: string; enabled: boolean };

export function OperationForm({ value }: { value?: TOperationFormValue }) {
  const [state, action, pending] = useActionState(saveOperationAction, null as TState);
  return (
    <form action={action} className="flex flex-col gap-2 p-3" data-testid={value ? `operation-form-${value.key}` : "operation-form-new"}>
      <input type="hidden" name="original" value={value?.key ?? ""} />
      <div className="flex flex-wrap items-start gap-3">
        <Field label="key" name="key" state={state}>
          <input
            name="key"
            defaultValue={value?.key}
            readOnly={Boolean(value)}
            placeholder="SEND_SMS"
            className="mono rounded border px-2 py-1"
            style={inputStyle}
          />
        </Field>
        <Field label="description" name="description" state={state}>
          <input name="description" defaultValue={value?.description} className="rounded border px-2 py-1" style={inputStyle} />
        </Field>
        <Field label="criticality" name="criticality" state={state}>
          <select name="criticality" defaultValue={value?.criticality ?? "medium"} className="rounded border px-2 py-1" style={inputStyle}>
            {CRITICALITIES.map((c) => (
              <option key={c}>{c}</option>
            ))}
          </select>
        </Field>
        <Field label="required certifications per region (EU: gdpr; NA: tcpa)" name="regionRequirements" state={state}>
          <input
            name="regionRequirements"
            defaultValue={value?.regionRequirements}
            placeholder="EU: gdpr"
            className="rounded border px-2 py-1"
            style={inputStyle}
          />
        </Field>
        <label className="flex items-center gap-1 self-end text-sm">
          <input type="checkbox" name="enabled" defaultChecked={value?.enabled ?? true} /> enabled
        </label>
        <Submit pending={pending}>{value ? "Save" : "Add operation"}</Submit>
      </div>
      <Outcome state={state} />
      <FormProblem state={state} shown={["key", "description", "criticality", "regionRequirements", "enabled"]} />
    </form>
  );
}

export type TAdapterFormValue = {
  kind: string;
  baseUrl: string;
  model: string | null;
  contextWindow: number | null;
  timeoutMs: number;
  options: Record<string, unknown>;
};

export function AdapterForm({ providerKey, value }: { providerKey: string; value: TAdapterFormValue | null }) {
  const [state, action, pending] = useActionState(saveAdapterAction, null as TState);
  return (
    <form action={action} className="flex flex-col gap-2 p-3" data-testid={`adapter-form-${providerKey}`}>
      <input type="hidden" name="provider" value={providerKey} />
      <div className="flex flex-wrap items-start gap-3">
        <Field label="kind" name="kind" state={state}>
          <select name="kind" defaultValue={value?.kind ?? "http_json"} className="rounded border px-2 py-1" style={inputStyle}>
            {ADAPTER_KINDS.map((k) => (
              <option key={k}>{k}</option>
            ))}
          </select>
        </Field>
        <Field label="base URL (https)" name="baseUrl" state={state}>
          <input
            name="baseUrl"
            defaultValue={value?.baseUrl}
            placeholder="https://api.example.com/v1"
            className="mono rounded border px-2 py-1"
            style={inputStyle}
          />
        </Field>
        <Field label="model" name="model" state={state}>
          <input name="model" defaultValue={value?.model ?? ""} className="rounded border px-2 py-1" style={inputStyle} />
        </Field>
        <Field label="context window" name="contextWindow" state={state}>
          <input name="contextWindow" defaultValue={value?.contextWindow ?? ""} className="w-24 rounded border px-2 py-1" style={inputStyle} />
        </Field>
        <Field label="timeout (ms)" name="timeoutMs" state={state}>
          <input name="timeoutMs" defaultValue={value?.timeoutMs ?? 30000} className="w-24 rounded border px-2 py-1" style={inputStyle} />
        </Field>
        <Field label="options (JSON: method, path, headers, body)" name="options" state={state}>
          <input
            name="options"
            defaultValue={value ? JSON.stringify(value.options) : ""}
            placeholder='{"path":"/messages"}'
            className="mono rounded border px-2 py-1"
            style={inputStyle}
          />
        </Field>
        <Submit pending={pending}>Save adapter</Submit>
      </div>
      <Outcome state={state} />
      <FormProblem state={state} shown={["kind", "baseUrl", "model", "contextWindow", "timeoutMs", "options"]} />
    </form>
  );
}

export type TLimitsFormValue = Record<string, number | null>;
const LIMIT_FIELDS: [string, string][] = [
  ["deadlineMs", "deadline (ms)"],
  ["maxAttempts", "attempts"],
  ["retryBudgetRatio", "retry budget ratio"],
  ["retryBudgetMinPerSecond", "retries/s floor"],
  ["costCapPerMinute", "cost cap / minute"],
  ["costCapPerDay", "cost cap / day"],
  ["maxFallbackSeconds", "max fallback (s)"],
  ["cacheTtlSeconds", "answer cache (s)"],
  ["idempotencyWindowSeconds", "idempotency window (s)"],
];

export function GatewayLimitsForm({ operationKey, value }: { operationKey: string; value: TLimitsFormValue | null }) {
  const [state, action, pending] = useActionState(saveGatewayLimitsAction, null as TState);
  return (
    <form action={action} className="flex flex-col gap-2 p-3" data-testid={`limits-form-${operationKey}`}>
      <input type="hidden" name="operation" value={operationKey} />
      <div className="flex flex-wrap items-start gap-3">
        {LIMIT_FIELDS.map(([name, label]) => (
          <Field key={name} label={label} name={name} state={state}>
            <input name={name} defaultValue={value?.[name] ?? ""} className="w-24 rounded border px-2 py-1" style={inputStyle} />
          </Field>
        ))}
        <Submit pending={pending}>Save limits</Submit>
      </div>
      <Outcome state={state} />
      <FormProblem state={state} shown={LIMIT_FIELDS.map(([n]) => n)} />
    </form>
  );
}

export function ChangeDecision({ id, canApprove }: { id: string; canApprove: boolean }) {
  const [approveState, approve, approving] = useActionState(approveCatalogChangeAction, null as TState);
  const [rejectState, reject, rejecting] = useActionState(rejectCatalogChangeAction, null as TState);
  return (
    <div className="flex flex-col gap-1" data-testid={`change-decision-${id}`}>
      <div className="flex items-center gap-2">
        {canApprove && (
          <form action={approve}>
            <input type="hidden" name="id" value={id} />
            <button type="submit" disabled={approving} className="text-xs underline" data-testid="approve-change">
              Approve
            </button>
          </form>
        )}
        <form action={reject} className="flex items-center gap-1">
          <input type="hidden" name="id" value={id} />
          <input name="comment" placeholder="why reject" className="rounded border px-1 text-xs" style={inputStyle} />
          <button type="submit" disabled={rejecting} className="text-xs underline" style={{ color: "var(--bad)" }}>
            Reject
          </button>
        </form>
      </div>
      {!canApprove && <span className="muted text-xs">You asked for this change: someone else in compliance approves it.</span>}
      <FormProblem state={approveState} shown={[]} />
      <FormProblem state={rejectState} shown={[]} />
    </div>
  );
}

"use client";

import { useActionState } from "react";
import type { TActionResult } from "@/lib/auth/with-action-permission";
import { Field, FieldError, FormProblem } from "@/components/form-feedback";
import type { TChannelView } from "@/lib/notify";
import { deleteChannelAction, saveChannelAction, testChannelAction } from "./actions";

type TState = TActionResult<{ status: string; detail: string }> | null;

const inputStyle = { borderColor: "var(--border)" };
const KINDS = ["webhook", "slack", "pagerduty"] as const;
const EVENT_KINDS = [
  "incident.opened",
  "incident.updated",
  "incident.resolved",
  "kill_switch.set",
  "kill_switch.ended",
  "pin.set",
  "pin.ended",
  "policy.activated",
  "compliance.approved",
] as const;
const SEVERITIES = ["critical", "warning", "info"] as const;
const FIELDS = ["name", "kind", "url", "secretRef", "routes", "enabled"];

function Outcome({ state, testId }: { state: TState; testId: string }) {
  if (!state?.ok) return null;
  return (
    <p className="text-xs" data-testid={testId} data-status={state.value.status} style={{ overflowWrap: "anywhere" }}>
      {state.value.status}
      {state.value.detail ? `: ${state.value.detail}` : ""}
    </p>
  );
}

function TextField({ label, name, state, value, placeholder }: { label: string; name: string; state: TState; value?: string; placeholder: string }) {
  return (
    <Field label={label} name={name} state={state}>
      <input name={name} defaultValue={value ?? ""} placeholder={placeholder} className="mono rounded border px-2 py-1" style={inputStyle} />
    </Field>
  );
}

function Checks({ name, options, chosen }: { name: string; options: readonly string[]; chosen: readonly string[] }) {
  return (
    <div className="flex flex-wrap gap-x-3 gap-y-1">
      {options.map((o) => (
        <label key={o} className="mono flex items-center gap-1 text-xs">
          <input type="checkbox" name={name} value={o} defaultChecked={chosen.includes(o)} /> {o}
        </label>
      ))}
    </div>
  );
}

/** One channel's settings (or a new one): kind, where, which secret reference, and which events it hears. */
export function ChannelForm({ value }: { value?: TChannelView }) {
  const [state, action, pending] = useActionState(saveChannelAction, null as TState);
  const testId = value ? `channel-form-${value.name}` : "channel-form-new";
  return (
    <form action={action} className="flex flex-col gap-2 p-3" data-testid={testId}>
      <input type="hidden" name="id" value={value?.id ?? ""} />
      <div className="grid gap-3" style={{ gridTemplateColumns: "repeat(auto-fit, minmax(13rem, 1fr))" }}>
        <TextField label="name" name="name" state={state} value={value?.name} placeholder="oncall-slack" />
        <Field label="kind" name="kind" state={state}>
          <select name="kind" defaultValue={value?.kind ?? "slack"} className="rounded border px-2 py-1" style={inputStyle}>
            {KINDS.map((k) => (
              <option key={k} value={k}>
                {k}
              </option>
            ))}
          </select>
        </Field>
        <TextField
          label="URL (webhook: receiver; PagerDuty: Events API, empty for PagerDuty's; Slack: empty)"
          name="url"
          state={state}
          value={value?.url ?? ""}
          placeholder="https://hooks.example.com/switchyard"
        />
        <TextField
          label="secret reference (signing secret, Slack URL or routing key)"
          name="secretRef"
          state={state}
          value={value?.secretRef}
          placeholder="env:SWITCHYARD_SECRET_SLACK_URL"
        />
        <TextField
          label="operations (comma-separated, empty: all)"
          name="routes.operations"
          state={state}
          value={value?.routes.operations.join(", ")}
          placeholder="SEND_SMS"
        />
        <TextField
          label="regions (comma-separated, empty: all)"
          name="routes.regions"
          state={state}
          value={value?.routes.regions.join(", ")}
          placeholder="EU, NA"
        />
      </div>
      <fieldset className="flex flex-col gap-1 text-xs">
        <legend className="muted">events (none ticked: all)</legend>
        <Checks name="routes.kinds" options={EVENT_KINDS} chosen={value?.routes.kinds ?? []} />
        <FieldError state={state} name="routes.kinds" />
      </fieldset>
      <fieldset className="flex flex-col gap-1 text-xs">
        <legend className="muted">severities (none ticked: all)</legend>
        <Checks name="routes.severities" options={SEVERITIES} chosen={value?.routes.severities ?? []} />
      </fieldset>
      <div className="flex flex-wrap items-center gap-3">
        <label className="flex items-center gap-1 text-sm">
          <input type="checkbox" name="enabled" defaultChecked={value?.enabled ?? true} /> enabled
        </label>
        <button type="submit" disabled={pending} className="rounded px-3 py-1 text-sm" style={{ background: "var(--accent)", color: "var(--panel)" }}>
          {value ? "Save" : "Add channel"}
        </button>
      </div>
      <Outcome state={state} testId="channel-outcome" />
      <FormProblem state={state} shown={FIELDS} />
    </form>
  );
}

export function TestSendButton({ id, name }: { id: string; name: string }) {
  const [state, action, pending] = useActionState(testChannelAction, null as TState);
  return (
    <form action={action} className="flex flex-col gap-1" data-testid={`test-send-${name}`}>
      <input type="hidden" name="id" value={id} />
      <button type="submit" disabled={pending} className="self-start rounded border px-3 py-1 text-sm" style={inputStyle}>
        {pending ? "Sending…" : "Send test"}
      </button>
      <Outcome state={state} testId="test-outcome" />
      <FormProblem state={state} shown={FIELDS} />
    </form>
  );
}

export function DeleteChannelButton({ id, name }: { id: string; name: string }) {
  const [state, action, pending] = useActionState(deleteChannelAction, null as TState);
  return (
    <form
      action={action}
      data-testid={`delete-${name}`}
      onSubmit={(e) => {
        if (!window.confirm(`Delete channel ${name}? Deliveries still waiting are marked failed.`)) e.preventDefault();
      }}
    >
      <input type="hidden" name="id" value={id} />
      <button type="submit" disabled={pending} className="text-xs underline" style={{ color: "var(--bad)" }}>
        Delete
      </button>
      <FormProblem state={state} shown={FIELDS} />
    </form>
  );
}

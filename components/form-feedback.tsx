"use client";

import type { ReactNode } from "react";
import type { TActionResult } from "@/lib/auth/with-action-permission";

/** A console form's last answer: null before the first submit. */
export type TFormState = TActionResult<unknown> | null;

/** Whether a refusal's field path belongs to the input `name` (or one of its sub-fields). */
const under = (path: string, name: string) => path === name || path.startsWith(`${name}.`) || path.startsWith(`${name}[`);

/** The refusal's messages for one field (and its sub-paths), shown under that field. */
export function FieldError({ state, name }: { state: TFormState; name: string }) {
  if (!state || state.ok) return null;
  const mine = (state.error.fields ?? []).filter((f) => under(f.path, name));
  if (mine.length === 0) return null;
  return (
    <span role="alert" className="text-xs" style={{ color: "var(--bad)" }} data-testid={`field-error-${name}`}>
      {mine.map((f) => f.message).join("; ")}
    </span>
  );
}

/** The refusal's message, and the messages of fields no input shows. */
export function FormProblem({ state, shown }: { state: TFormState; shown: readonly string[] }) {
  if (!state || state.ok) return null;
  const other = (state.error.fields ?? []).filter((f) => !shown.some((n) => under(f.path, n)));
  return (
    <div role="alert" className="text-xs" style={{ color: "var(--bad)" }} data-testid="form-problem">
      {state.error.message}
      {other.map((f) => (
        <div key={f.path}>
          {f.path || "(body)"}: {f.message}
        </div>
      ))}
    </div>
  );
}

/** A labelled input with its field's refusal under it. */
export function Field({ label, name, state, children }: { label: string; name: string; state: TFormState; children: ReactNode }) {
  return (
    <label className="flex min-w-0 flex-col gap-0.5 text-xs">
      <span className="muted">{label}</span>
      {children}
      <FieldError state={state} name={name} />
    </label>
  );
}

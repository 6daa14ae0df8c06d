"use client";

import { useActionState } from "react";
import { Field, FormProblem } from "@/components/form-feedback";
import { inputStyle, Outcome, Submit, type TState } from "./catalog-forms";
import { deleteDeclarationAction, saveCertificationAction, saveRegionAction } from "./actions";

/**
 * Declares a region with its compliance rule, or changes the rule of one (same name). Providers,
 * operations and factor lists may name only declared regions.
 */
export function RegionForm() {
  const [state, action, pending] = useActionState(saveRegionAction, null as TState);
  return (
    <form action={action} className="flex flex-col gap-2 p-3" data-testid="region-form">
      <div className="flex flex-wrap items-start gap-3">
        <Field label="region" name="name" state={state}>
          <input name="name" placeholder="EU" className="mono rounded border px-2 py-1" style={inputStyle} />
        </Field>
        <Field label="every provider serving it must hold (gdpr, soc2)" name="requires" state={state}>
          <input name="requires" placeholder="gdpr" className="rounded border px-2 py-1" style={inputStyle} />
        </Field>
        <Submit pending={pending}>Save region</Submit>
      </div>
      <Outcome state={state} />
      <FormProblem state={state} shown={["name", "requires"]} />
    </form>
  );
}

export function CertificationForm() {
  const [state, action, pending] = useActionState(saveCertificationAction, null as TState);
  return (
    <form action={action} className="flex flex-col gap-2 p-3" data-testid="certification-form">
      <div className="flex flex-wrap items-start gap-3">
        <Field label="certification" name="name" state={state}>
          <input name="name" placeholder="gdpr" className="mono rounded border px-2 py-1" style={inputStyle} />
        </Field>
        <Field label="description" name="description" state={state}>
          <input name="description" className="rounded border px-2 py-1" style={inputStyle} />
        </Field>
        <Submit pending={pending}>Save certification</Submit>
      </div>
      <Outcome state={state} />
      <FormProblem state={state} shown={["name", "description"]} />
    </form>
  );
}

/** Removes a region or certification declared by mistake; the refusal lists what still names it. */
export function DeleteDeclarationButton({ kind, name }: { kind: "region" | "certification"; name: string }) {
  const [state, action, pending] = useActionState(deleteDeclarationAction, null as TState);
  return (
    <form action={action} data-testid={`delete-${kind}-${name}`} className="flex flex-col gap-0.5">
      <input type="hidden" name="kind" value={kind} />
      <input type="hidden" name="name" value={name} />
      <button type="submit" disabled={pending} className="self-start text-xs underline" aria-label={`Delete ${kind} ${name}`}>
        Delete
      </button>
      <FormProblem state={state} shown={[]} />
    </form>
  );
}

"use client";

import { useId, useMemo } from "react";
import { editYaml, readYaml } from "@/lib/console/factor-lists/factor-list-yaml-edit";
import type { TError } from "./form-fields";
import { GatesSection, LimitSections, ProvidersSection, ScoresSection, type TFormContext } from "./form-sections";

/**
 * The form view of a factor-list draft. It edits the same YAML text as the YAML view, a field at a
 * time, and shows router-core's schema errors next to the field they name; the score weights'
 * sum is checked as it is typed. Fields the form does not cover (circuit breaker, regional
 * rules, description) stay as the YAML has them.
 */
export function FactorListForm({
  yaml,
  onChange,
  errors,
  height,
}: {
  yaml: string;
  onChange: (yaml: string) => void;
  errors: readonly TError[];
  height: number;
}) {
  const raw = useMemo(() => readYaml(yaml), [yaml]);
  const idBase = useId();
  if (raw === null) {
    return (
      <div className="flex items-center justify-center p-4 text-sm" style={{ height }} data-testid="factor-list-form">
        <p role="alert" style={{ color: "var(--bad)" }}>
          The YAML is not a mapping of fields yet: fix it in the YAML view, then the form can edit it.
        </p>
      </div>
    );
  }
  const ctx: TFormContext = { raw, errors, idBase, set: (path, value) => onChange(editYaml(yaml, path, value)) };
  return (
    <div className="flex flex-col gap-3 overflow-y-auto px-3 py-2" style={{ height }} data-testid="factor-list-form">
      <ProvidersSection ctx={ctx} />
      <GatesSection ctx={ctx} />
      <ScoresSection ctx={ctx} />
      <LimitSections ctx={ctx} />
      <p className="muted text-xs">Circuit breaker, regional rules and the other fields are edited in the YAML view; the form leaves them as they are.</p>
    </div>
  );
}

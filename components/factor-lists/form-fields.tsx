"use client";

import { useId, useState } from "react";
import { parseFactorList, type TFactorList } from "@/router-core/index";
import { numberOrText, type TYamlPath } from "@/lib/console/factor-lists/factor-list-yaml-edit";
import { numberText, valueText } from "@/router-core/policy/number-text";

/** The form view's building blocks: field errors by path, number, select and weight inputs, sections. */

export type TError = { path: string; message: string };

/** Router-core's defaults, shown where the YAML leaves a field out. */
export const DEFAULTS: TFactorList = (() => {
  const parsed = parseFactorList({ operation: "DEFAULTS" });
  if (!parsed.ok) throw new Error("router-core's defaults do not parse");
  return parsed.value;
})();

export const WEIGHT_TOLERANCE = 1e-9;

export function get(obj: unknown, path: TYamlPath): unknown {
  let cur = obj;
  for (const key of path) {
    if (cur === null || typeof cur !== "object") return undefined;
    cur = (cur as Record<string | number, unknown>)[key];
  }
  return cur;
}

const pathText = (path: TYamlPath) => path.map((p, i) => (typeof p === "number" ? `[${p}]` : i === 0 ? p : `.${p}`)).join("");

/** Errors at this path or below it. */
export function errorsAt(errors: readonly TError[], path: TYamlPath): TError[] {
  const p = pathText(path);
  return errors.filter((e) => e.path === p || e.path.startsWith(`${p}.`) || e.path.startsWith(`${p}[`));
}

export function FieldErrors({ errors, id }: { errors: TError[]; id: string }) {
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
export function NumberField({
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
  const shown = editing ?? valueText(value);
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
        placeholder={fallback === undefined ? "none" : `${numberText(fallback)} (default)`}
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

export function SelectField({
  label,
  path,
  value,
  options,
  errors,
  onSet,
}: {
  label: string;
  path: TYamlPath;
  value: unknown;
  options: readonly string[];
  errors: readonly TError[];
  onSet: (path: TYamlPath, value: unknown) => void;
}) {
  const own = errorsAt(errors, path);
  const id = useId();
  const current = typeof value === "string" ? value : "";
  return (
    <label className="grid grid-cols-[220px_1fr] items-center gap-2 text-xs">
      <span className="mono">{label}</span>
      <span className="flex items-center gap-2">
        <select
          className="field mono"
          value={current}
          onChange={(e) => onSet(path, e.target.value)}
          aria-invalid={own.length > 0}
          aria-describedby={own.length > 0 ? `${id}-e` : undefined}
          data-testid={`form-${pathText(path)}`}
        >
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

export function Section({ title, children, note }: { title: string; children: React.ReactNode; note?: string }) {
  return (
    <fieldset className="flex flex-col gap-1.5 border-t pt-2" style={{ borderColor: "var(--border)" }}>
      <legend className="pr-2 text-xs font-semibold">{title}</legend>
      {note ? <p className="muted text-xs">{note}</p> : null}
      {children}
    </fieldset>
  );
}

export function WeightInput({ value, onSet, invalid, testId }: { value: unknown; onSet: (w: unknown) => void; invalid: boolean; testId: string }) {
  const [editing, setEditing] = useState<string | null>(null);
  const shown = editing ?? valueText(value);
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

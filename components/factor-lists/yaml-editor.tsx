"use client";

import { useRouter } from "next/navigation";
import { useDeferredValue, useMemo, useRef, useState, type ChangeEvent, type RefObject } from "react";
import { diffFactorLists, parseFactorList, type TFactorList } from "@/router-core/index";
import { ControlErrorView } from "../providers/control-error";
import { controlRequest, type TControlError } from "../providers/control-request";
import { DiffTable } from "./diff-table";
import { FactorListForm } from "./factor-list-form";
import { ComplianceBadge } from "./status-badge";

const LINE_HEIGHT = 18;
const EDITOR_HEIGHT = 520;

const PAD = 8;

/** Moves the caret to a line and column (1-based) and scrolls it into view. */
function goTo(t: HTMLTextAreaElement | null, line: number, column: number) {
  if (!t) return;
  const lines = t.value.split("\n");
  const offset = lines.slice(0, line - 1).reduce((n, l) => n + l.length + 1, 0) + Math.max(0, column - 1);
  t.focus();
  t.setSelectionRange(offset, offset);
  t.scrollTop = Math.max(0, (line - 1) * LINE_HEIGHT - EDITOR_HEIGHT / 3);
}

/**
 * The YAML text with line numbers; lines with a syntax error are marked in the gutter and with a
 * band behind the text. Tab indents with two spaces, Escape leaves the field.
 */
function YamlText({
  yaml,
  setYaml,
  errorLines,
  area,
}: {
  yaml: string;
  setYaml: (y: string) => void;
  errorLines: ReadonlySet<number>;
  area: RefObject<HTMLTextAreaElement | null>;
}) {
  const gutter = useRef<HTMLDivElement>(null);
  const [scrollTop, setScrollTop] = useState(0);
  const lineCount = yaml.split("\n").length;
  return (
    <>
      <div
        ref={gutter}
        aria-hidden
        className="mono muted overflow-hidden py-2 pr-2 pl-3 text-right text-xs select-none"
        style={{ lineHeight: `${LINE_HEIGHT}px`, minWidth: 44, background: "var(--bg)" }}
      >
        {Array.from({ length: lineCount }, (_, i) => (
          <div
            key={i}
            data-error-line={errorLines.has(i + 1) || undefined}
            style={errorLines.has(i + 1) ? { color: "var(--bad)", fontWeight: 700, boxShadow: "inset -3px 0 0 var(--bad)" } : undefined}
          >
            {i + 1}
          </div>
        ))}
      </div>
      <div className="relative flex flex-1 overflow-hidden" style={{ background: "var(--panel)" }}>
        {[...errorLines].map((line) => (
          <div
            key={line}
            aria-hidden
            data-testid="yaml-error-line"
            data-line={line}
            className="pointer-events-none absolute inset-x-0"
            style={{
              top: PAD + (line - 1) * LINE_HEIGHT - scrollTop,
              height: LINE_HEIGHT,
              background: "color-mix(in srgb, var(--bad) 18%, transparent)",
              borderBottom: "1px dashed var(--bad)",
            }}
          />
        ))}
        <textarea
          ref={area}
          aria-label="Factor list YAML"
          aria-invalid={errorLines.size > 0}
          className="mono relative flex-1 resize-none text-xs outline-none"
          style={{ padding: PAD, lineHeight: `${LINE_HEIGHT}px`, background: "transparent", color: "var(--text)", whiteSpace: "pre", overflowWrap: "normal" }}
          spellCheck={false}
          wrap="off"
          value={yaml}
          onChange={(e) => setYaml(e.target.value)}
          onScroll={(e) => {
            if (gutter.current) gutter.current.scrollTop = e.currentTarget.scrollTop;
            setScrollTop(e.currentTarget.scrollTop);
          }}
          onKeyDown={(e) => {
            // Tab indents (YAML needs spaces); Escape leaves the editor for keyboard users.
            if (e.key === "Tab" && !e.shiftKey) {
              e.preventDefault();
              const t = e.currentTarget;
              const { selectionStart: s, selectionEnd: end } = t;
              setYaml(yaml.slice(0, s) + "  " + yaml.slice(end));
              requestAnimationFrame(() => t.setSelectionRange(s + 2, s + 2));
            } else if (e.key === "Escape") e.currentTarget.blur();
          }}
          data-testid="yaml-editor"
        />
      </div>
    </>
  );
}

type TParsed = ReturnType<typeof parseFactorList>;

function ValidationPanel({ parsed, onGoTo }: { parsed: TParsed; onGoTo: (line: number, column: number) => void }) {
  return (
    <section className="panel" aria-label="Validation" data-testid="validation">
      <h2 className="panel-title">
        Validation{" "}
        <span className="font-normal" style={{ color: parsed.ok ? "var(--ok)" : "var(--bad)" }} data-testid="validation-summary">
          · {parsed.ok ? "valid" : `${parsed.errors.length} error${parsed.errors.length === 1 ? "" : "s"}`}
        </span>
      </h2>
      <div style={{ height: 200, overflowY: "auto" }}>
        <table className="dense">
          <tbody>
            {(parsed.ok ? parsed.warnings : parsed.errors).map((e, i) => (
              <tr key={i} data-testid="validation-error">
                <td className="mono" style={{ width: 200, whiteSpace: "normal", wordBreak: "break-all", color: parsed.ok ? "var(--warn)" : "var(--bad)" }}>
                  {e.line !== undefined && (
                    <button
                      type="button"
                      className="underline block"
                      style={{ color: "inherit" }}
                      onClick={() => onGoTo(e.line!, e.column ?? 1)}
                      data-testid="validation-position"
                    >
                      line {e.line}, column {e.column}
                    </button>
                  )}
                  {/* The field path stays next to the position: it names the field in the form view too. */}
                  {(e.path || e.line === undefined) && <span className="block">{e.path || "(document)"}</span>}
                </td>
                <td style={{ whiteSpace: "normal" }}>{e.message}</td>
              </tr>
            ))}
            {parsed.ok && parsed.warnings.length === 0 ? (
              <tr>
                <td className="muted" style={{ whiteSpace: "normal" }}>
                  No error. The server also checks the operation and providers against the catalogue when you save.
                </td>
              </tr>
            ) : null}
          </tbody>
        </table>
      </div>
    </section>
  );
}

function DiffPanel({ parsed, diff, active }: { parsed: TParsed; diff: ReturnType<typeof diffFactorLists> | null; active: { version: number } | null }) {
  return (
    <section className="panel" aria-label="Diff against the active version">
      <h2 className="panel-title">
        Diff against {active ? `active v${active.version}` : "nothing (no active version)"} {diff?.complianceRelevant ? <ComplianceBadge /> : null}
      </h2>
      <div style={{ height: 260, overflowY: "auto" }}>
        {diff ? (
          <DiffTable changes={diff.changes} against={`v${active?.version}`} />
        ) : (
          <p className="muted px-3 py-2 text-sm">{parsed.ok ? "Nothing to compare with." : "Fix the errors to see the diff."}</p>
        )}
      </div>
    </section>
  );
}

/**
 * Factor-list editor: a YAML view and a form view of the same draft text. Router-core's own
 * parser runs in the browser on every change, so the author sees every error by field path (and
 * the diff against the active version) before saving. The server validates again on save and
 * adds what only it knows (unknown operations/providers).
 */
export function YamlEditor({
  mode,
  versionId,
  initialYaml,
  initialNote,
  active,
}: {
  mode: "create" | "edit";
  versionId?: string;
  initialYaml: string;
  initialNote: string;
  active: { version: number; document: TFactorList } | null;
}) {
  const router = useRouter();
  const [yaml, setYaml] = useState(initialYaml);
  const [view, setView] = useState<"yaml" | "form">("yaml");
  const [note, setNote] = useState(initialNote);
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<TControlError | null>(null);
  const deferred = useDeferredValue(yaml);
  const parsed = useMemo(() => parseFactorList(deferred), [deferred]);
  const diff = useMemo(() => (parsed.ok && active ? diffFactorLists(active.document, parsed.value) : null), [parsed, active]);
  const errorLines = useMemo(() => new Set(parsed.ok ? [] : parsed.errors.flatMap((e) => (e.line === undefined ? [] : [e.line]))), [parsed]);
  const area = useRef<HTMLTextAreaElement>(null);
  const goToError = (line: number, column: number) => {
    setView("yaml");
    requestAnimationFrame(() => goTo(area.current, line, column));
  };

  const importFile = async (e: ChangeEvent<HTMLInputElement>) => {
    const file = e.target.files?.[0];
    if (file) setYaml(await file.text());
    e.target.value = "";
  };

  const save = async () => {
    setBusy(true);
    setError(null);
    const body = { yaml, changeNote: note };
    const res =
      mode === "create"
        ? await controlRequest<{ version: { id: string } }>("/api/control/factor-lists", "POST", body)
        : await controlRequest<{ version: { id: string } }>(`/api/control/factor-lists/${versionId}`, "PATCH", body);
    setBusy(false);
    if (!res.ok) return setError(res.error);
    router.push(`/factor-lists/${res.value.version.id}`);
    router.refresh();
  };

  return (
    <div className="grid grid-cols-1 gap-4 xl:grid-cols-[minmax(0,1fr)_minmax(0,1fr)]">
      <section className="panel flex flex-col">
        <div className="flex items-center gap-2 px-3 pt-3 pb-2">
          <h1 className="text-sm font-semibold">{mode === "create" ? "New draft" : "Edit draft"}</h1>
          <span className="ml-3 flex gap-1" role="group" aria-label="Editor view">
            {(["yaml", "form"] as const).map((v) => (
              <button key={v} type="button" className="btn" aria-pressed={view === v} onClick={() => setView(v)} data-testid={`view-${v}`}>
                {v === "yaml" ? "YAML" : "Form"}
              </button>
            ))}
          </span>
          <label className="btn ml-auto">
            Import YAML…
            <input type="file" accept=".yaml,.yml,.json,text/yaml,application/json" className="sr-only" onChange={importFile} data-testid="import-yaml" />
          </label>
        </div>
        <div className="flex border-y" style={{ borderColor: "var(--border)", height: EDITOR_HEIGHT }}>
          {view === "form" ? (
            <div className="flex-1" style={{ minWidth: 0 }}>
              <FactorListForm yaml={yaml} onChange={setYaml} errors={parsed.ok ? [] : parsed.errors} height={EDITOR_HEIGHT} />
            </div>
          ) : (
            <YamlText yaml={yaml} setYaml={setYaml} errorLines={errorLines} area={area} />
          )}
        </div>
        <div className="flex items-center gap-2 p-3">
          <input
            className="field flex-1"
            placeholder="Change note: what changes and why"
            value={note}
            onChange={(e) => setNote(e.target.value)}
            data-testid="change-note"
          />
          <button type="button" className="btn" disabled={busy || !parsed.ok} onClick={save} data-testid="save-draft">
            {busy ? "Saving…" : mode === "create" ? "Create draft" : "Save draft"}
          </button>
        </div>
        <div className="px-3 pb-3">
          <ControlErrorView error={error} />
        </div>
      </section>

      <div className="flex flex-col gap-4">
        <ValidationPanel parsed={parsed} onGoTo={goToError} />
        <DiffPanel parsed={parsed} diff={diff} active={active} />
      </div>
    </div>
  );
}

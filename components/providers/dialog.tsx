"use client";

import { useRef, type FormEvent, type ReactNode } from "react";
import { useModalFocus } from "../use-modal-focus";

/**
 * A modal confirm form. Escape cancels; Enter submits through the form, and `canSubmit` gates
 * both the button and Enter, so a half-filled form (no reason yet) never confirms.
 */
export function ConfirmDialog({
  title,
  open,
  onClose,
  onConfirm,
  canSubmit,
  busy,
  confirmLabel,
  danger,
  children,
}: {
  title: string;
  open: boolean;
  onClose: () => void;
  onConfirm: () => void;
  canSubmit: boolean;
  busy: boolean;
  confirmLabel: string;
  danger?: boolean;
  children: ReactNode;
}) {
  const panel = useRef<HTMLFormElement>(null);
  useModalFocus(open, onClose, panel, true);
  if (!open) return null;
  const submit = (e: FormEvent) => {
    e.preventDefault();
    if (canSubmit && !busy) onConfirm();
  };
  return (
    <div
      className="fixed inset-0 z-50 flex items-start justify-center pt-[10vh]"
      role="presentation"
      onClick={onClose}
      style={{ background: "rgb(0 0 0 / 0.35)" }}
    >
      <form
        ref={panel}
        role="dialog"
        aria-modal="true"
        aria-label={title}
        tabIndex={-1}
        onSubmit={submit}
        onClick={(e) => e.stopPropagation()}
        onKeyDown={(e) => {
          // Enter in a textarea confirms too (Shift+Enter for a new line), but only once the form is complete.
          if (e.key === "Enter" && !e.shiftKey && e.target instanceof HTMLTextAreaElement) submit(e);
        }}
        className="panel flex w-[min(640px,95vw)] flex-col gap-3 p-4 outline-none"
        data-testid="confirm-dialog"
      >
        <h2 className="text-sm font-semibold">{title}</h2>
        {children}
        <div className="flex items-center gap-2">
          <span className="muted text-xs">Esc cancels · Enter confirms</span>
          <button type="button" className="btn ml-auto" onClick={onClose}>
            Cancel
          </button>
          <button type="submit" className={`btn ${danger ? "btn-danger" : ""}`} disabled={!canSubmit || busy} data-testid="confirm-button">
            {busy ? "Working…" : confirmLabel}
          </button>
        </div>
      </form>
    </div>
  );
}

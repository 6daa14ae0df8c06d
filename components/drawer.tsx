"use client";

import { useRef, type ReactNode } from "react";
import { useModalFocus } from "./use-modal-focus";

/** A right-hand panel over the page; Escape or the close button dismisses it and focus returns to where it was. */
export function Drawer({ title, open, onClose, children }: { title: string; open: boolean; onClose: () => void; children: ReactNode }) {
  const panel = useRef<HTMLDivElement>(null);
  useModalFocus(open, onClose, panel);
  if (!open) return null;
  return (
    <div className="fixed inset-0 z-40" role="presentation" onClick={onClose} style={{ background: "rgb(0 0 0 / 0.25)" }}>
      <div
        ref={panel}
        role="dialog"
        aria-modal="true"
        aria-label={title}
        tabIndex={-1}
        onClick={(e) => e.stopPropagation()}
        className="absolute top-0 right-0 flex h-full w-[min(720px,100vw)] flex-col gap-3 overflow-y-auto border-l p-4 outline-none"
        style={{ background: "var(--panel)", borderColor: "var(--border)" }}
        data-testid="drawer"
      >
        <div className="flex items-center gap-3">
          <h2 className="text-sm font-semibold">{title}</h2>
          <button type="button" onClick={onClose} className="btn ml-auto" aria-label="Close (Escape)">
            Close
          </button>
        </div>
        {children}
      </div>
    </div>
  );
}

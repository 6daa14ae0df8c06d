"use client";

import { useCallback, useEffect, useRef, useState } from "react";
import { NAV_ITEMS } from "./nav";
import { useModalFocus } from "./use-modal-focus";

const OTHER_KEYS = [
  { keys: "t", what: "Toggle light and dark theme" },
  { keys: "?", what: "Show this list" },
  { keys: "Esc", what: "Close a dialog, drawer or this list" },
] as const;

function typingIn(target: EventTarget | null): boolean {
  const el = target as HTMLElement | null;
  return Boolean(el && (el.isContentEditable || /^(INPUT|TEXTAREA|SELECT)$/.test(el.tagName)));
}

/** "?" opens the console's keyboard shortcuts as a modal dialog; Escape or the button closes it. */
export function KeyboardHelp() {
  const [open, setOpen] = useState(false);
  const panel = useRef<HTMLDivElement>(null);
  const close = useCallback(() => setOpen(false), []);
  useModalFocus(open, close, panel);
  useEffect(() => {
    const onKey = (e: KeyboardEvent) => {
      if (e.key === "?" && !e.metaKey && !e.ctrlKey && !e.altKey && !typingIn(e.target)) {
        e.preventDefault();
        setOpen((o) => !o);
      }
    };
    window.addEventListener("keydown", onKey);
    return () => window.removeEventListener("keydown", onKey);
  }, []);
  if (!open) return null;
  return (
    <div className="fixed inset-0 z-50 flex items-center justify-center" style={{ background: "rgb(0 0 0 / 0.4)" }} onClick={close}>
      <div
        ref={panel}
        role="dialog"
        aria-modal="true"
        aria-labelledby="keyboard-help-title"
        tabIndex={-1}
        className="panel w-[420px] max-w-[92vw] p-4"
        onClick={(e) => e.stopPropagation()}
        data-testid="keyboard-help"
      >
        <h2 id="keyboard-help-title" className="mb-2 font-semibold">
          Keyboard shortcuts
        </h2>
        <table className="dense w-full text-sm">
          <tbody>
            {NAV_ITEMS.map((i) => (
              <tr key={i.key}>
                <td className="mono" style={{ width: 80 }}>
                  <kbd>g</kbd> <kbd>{i.key}</kbd>
                </td>
                <td>Go to {i.label}</td>
              </tr>
            ))}
            {OTHER_KEYS.map((k) => (
              <tr key={k.keys}>
                <td className="mono">
                  <kbd>{k.keys}</kbd>
                </td>
                <td>{k.what}</td>
              </tr>
            ))}
          </tbody>
        </table>
        <div className="mt-3 text-right">
          <button type="button" className="btn" onClick={close}>
            Close
          </button>
        </div>
      </div>
    </div>
  );
}

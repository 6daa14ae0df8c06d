"use client";

import { useEffect, type RefObject } from "react";

/**
 * Shared behaviour of the console's overlays: while open, focus moves into the panel (its first
 * field when it has one), Escape closes it, and focus returns to where it was on close.
 */
export function useModalFocus(open: boolean, onClose: () => void, panel: RefObject<HTMLElement | null>, focusFirstField = false): void {
  useEffect(() => {
    if (!open) return;
    const previous = document.activeElement as HTMLElement | null;
    const first = focusFirstField ? panel.current?.querySelector<HTMLElement>("textarea, input, select") : null;
    (first ?? panel.current)?.focus();
    const onKey = (e: KeyboardEvent) => {
      if (e.key === "Escape") onClose();
    };
    window.addEventListener("keydown", onKey);
    return () => {
      window.removeEventListener("keydown", onKey);
      previous?.focus();
    };
  }, [open, onClose, panel, focusFirstField]);
}

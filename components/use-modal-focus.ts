"use client";

import { useEffect, type RefObject } from "react";

const FOCUSABLE = "a[href], button, input, select, textarea, summary, [tabindex]:not([tabindex='-1'])";

/** The panel's controls a Tab can reach, in document order: enabled, not hidden. */
function tabStops(panel: HTMLElement): HTMLElement[] {
  return [...panel.querySelectorAll<HTMLElement>(FOCUSABLE)].filter((el) => !el.matches(":disabled") && el.tabIndex >= 0 && el.getClientRects().length > 0);
}

/**
 * Keeps Tab inside the panel: from its last control Tab goes to the first, and Shift+Tab from the
 * first to the last, so keyboard users cannot wander into the page hidden behind the overlay.
 */
function trapTab(e: KeyboardEvent, panel: HTMLElement): void {
  const stops = tabStops(panel);
  const active = document.activeElement;
  if (stops.length === 0) {
    e.preventDefault();
    panel.focus();
    return;
  }
  const first = stops[0]!;
  const last = stops[stops.length - 1]!;
  const outside = !(active instanceof Node) || !panel.contains(active) || active === panel;
  if (e.shiftKey && (outside || active === first)) {
    e.preventDefault();
    last.focus();
  } else if (!e.shiftKey && (outside || active === last)) {
    e.preventDefault();
    first.focus();
  }
}

/**
 * Shared behaviour of the console's overlays: while open, focus moves into the panel (its first
 * field when it has one) and Tab stays inside it, Escape closes it, and focus returns to where it
 * was on close.
 */
export function useModalFocus(open: boolean, onClose: () => void, panel: RefObject<HTMLElement | null>, focusFirstField = false): void {
  useEffect(() => {
    if (!open) return;
    const previous = document.activeElement as HTMLElement | null;
    const first = focusFirstField ? panel.current?.querySelector<HTMLElement>("textarea, input, select") : null;
    (first ?? panel.current)?.focus();
    const onKey = (e: KeyboardEvent) => {
      if (e.key === "Escape") onClose();
      else if (e.key === "Tab" && panel.current) trapTab(e, panel.current);
    };
    window.addEventListener("keydown", onKey);
    return () => {
      window.removeEventListener("keydown", onKey);
      previous?.focus();
    };
  }, [open, onClose, panel, focusFirstField]);
}

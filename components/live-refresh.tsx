"use client";

import { useRouter } from "next/navigation";
import { useEffect, useState, useTransition } from "react";

/**
 * Keeps a server-rendered page live: every `intervalMs` while the tab is visible it re-renders
 * the page's server components (router.refresh(): fresh data, client state such as an open
 * dialog or a typed reason kept). Pausable, so on-call can hold a moment still while reading it;
 * the pause lasts until the page is left. Shows when the data was last refreshed.
 */
export function LiveRefresh({ intervalMs = 5_000, label = "Live" }: { intervalMs?: number; label?: string }) {
  const router = useRouter();
  const [paused, setPaused] = useState(false);
  const [refreshedAt, setRefreshedAt] = useState(() => Date.now());
  const [now, setNow] = useState(() => Date.now());
  const [pending, startTransition] = useTransition();

  useEffect(() => {
    const clock = setInterval(() => setNow(Date.now()), 1_000);
    return () => clearInterval(clock);
  }, []);

  useEffect(() => {
    if (paused) return;
    const timer = setInterval(() => {
      if (document.visibilityState !== "visible") return;
      startTransition(() => {
        router.refresh();
        setRefreshedAt(Date.now());
      });
    }, intervalMs);
    return () => clearInterval(timer);
  }, [paused, intervalMs, router]);

  const age = Math.max(0, Math.round((now - refreshedAt) / 1000));
  return (
    <button
      type="button"
      onClick={() => setPaused((p) => !p)}
      className="rounded border px-2 py-0.5 text-xs"
      style={{ borderColor: "var(--border)", color: paused ? "var(--warn, var(--muted))" : "var(--muted)" }}
      aria-pressed={paused}
      title={paused ? "Paused: click to refresh every few seconds again" : `Refreshes every ${Math.round(intervalMs / 1000)} s; click to pause`}
      data-testid="live-refresh"
    >
      {paused ? "Paused" : `${label}${pending ? " · updating" : ` · ${age} s ago`}`}
    </button>
  );
}

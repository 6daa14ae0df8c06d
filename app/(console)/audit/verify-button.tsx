"use client";

import { useState } from "react";

type TResult = { ok: true; entries: number; headHash: string } | { ok: false; entries: number; firstBreak: { seq: number; problem: string; detail: string } };

/** Walks the whole hash chain through governance's verify endpoint and reports the first broken link. */
export function VerifyChainButton() {
  const [state, setState] = useState<{ busy: boolean; result: TResult | null; error: string | null }>({ busy: false, result: null, error: null });
  const verify = async () => {
    setState({ busy: true, result: null, error: null });
    const res = await fetch("/api/control/audit/verify", { cache: "no-store" });
    if (!res.ok) return setState({ busy: false, result: null, error: `HTTP ${res.status}` });
    setState({ busy: false, result: (await res.json()) as TResult, error: null });
  };
  const r = state.result;
  return (
    <span className="flex items-center gap-2 text-sm">
      <button type="button" className="btn" onClick={verify} disabled={state.busy} data-testid="verify-chain">
        {state.busy ? "Verifying…" : "Verify chain"}
      </button>
      <span
        role="status"
        data-testid="verify-result"
        className="mono text-xs"
        style={{ minWidth: 320, color: r ? (r.ok ? "var(--ok)" : "var(--bad)") : state.error ? "var(--bad)" : "var(--muted)" }}
      >
        {r
          ? r.ok
            ? `intact: ${r.entries} entries, head ${r.headHash.slice(0, 12)}…`
            : `broken at #${r.firstBreak.seq} (${r.firstBreak.problem}): ${r.firstBreak.detail}`
          : (state.error ?? "")}
      </span>
    </span>
  );
}

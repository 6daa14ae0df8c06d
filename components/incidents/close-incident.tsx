"use client";

import { useRouter } from "next/navigation";
import { useState } from "react";
import { ControlErrorView } from "../providers/control-error";
import { controlRequest, type TControlError } from "../providers/control-request";
import { ConfirmDialog } from "../providers/dialog";

const MIN_REASON = 3; // lib/incidents ZCloseIncidentBody's minimum

/** Closes the incident by hand (the provider is known fixed, or it was a drill); the reason is audited. */
export function CloseIncident({ id }: { id: string }) {
  const router = useRouter();
  const [open, setOpen] = useState(false);
  const [reason, setReason] = useState("");
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<TControlError | null>(null);
  const confirm = async () => {
    setBusy(true);
    setError(null);
    const res = await controlRequest(`/api/control/incidents/${id}/close`, "POST", { reason: reason.trim() });
    setBusy(false);
    if (!res.ok) return setError(res.error);
    setOpen(false);
    router.refresh();
  };
  return (
    <div>
      <button type="button" className="btn" onClick={() => setOpen(true)} data-testid="close-incident">
        Close incident…
      </button>
      <ConfirmDialog
        title="Close incident"
        open={open}
        onClose={() => setOpen(false)}
        onConfirm={confirm}
        canSubmit={reason.trim().length >= MIN_REASON}
        busy={busy}
        confirmLabel="Close incident"
      >
        <label className="flex flex-col gap-1 text-sm">
          <span className="muted">Why it is over</span>
          <textarea className="field" rows={2} value={reason} onChange={(e) => setReason(e.target.value)} placeholder="required" data-testid="close-reason" />
        </label>
        <ControlErrorView error={error} />
      </ConfirmDialog>
    </div>
  );
}

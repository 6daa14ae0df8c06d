"use client";

import Link from "next/link";
import { useRouter } from "next/navigation";
import { useCallback, useState } from "react";
import type { TPermission } from "@/lib/auth/permissions";
import type { TReviewStanding } from "@/lib/controlplane/reviews/review-standing";
import { ControlErrorView } from "../providers/control-error";
import { controlRequest, type TControlError } from "../providers/control-request";
import { ConfirmDialog } from "../providers/dialog";

type TAction = {
  key: string;
  label: string;
  permission: TPermission;
  statuses: readonly string[];
  path: string;
  /** The text field the endpoint takes, whether it must be filled, and its label. */
  text: { field: "comment" | "reason"; required: boolean; label: string } | null;
  /** Pointer moves send the lock_version the page was rendered with: a stale screen gets 409. */
  locked?: boolean;
  danger?: boolean;
  onlyOnceActive?: boolean;
  /** Shown only when the reviewer's standing allows it (not the author's own change, not reviewed twice). */
  standing?: keyof TReviewStanding["may"];
};

/**
 * What a refusal means for the person who clicked, in plain words: the control plane's codes
 * (kept below it for support) are not an explanation. The page refreshes after any refusal, so
 * the state the sentence refers to is the one on screen.
 */
export function plainRefusal(code: string, status: number): string | null {
  if (code === "already_reviewed")
    return "You have already reviewed this version. One person gives one review; the other approval must come from someone else.";
  if (code === "four_eyes") return "You wrote or edited this version, so someone else has to do this.";
  if (code === "invalid_state") return "Someone acted on this version since this page was loaded; it now shows the version as it is.";
  if (code === "policy_conflict") return "The operation's live version changed since this page was loaded; check the page again before retrying.";
  if (code === "needs_compliance_approval")
    return "Compared with the version live now, this changes gates or regional rules, so it needs a compliance approval first.";
  if (status === 403) return "Your roles do not allow this action.";
  if (status === 401) return "Your session ended: sign in again.";
  return null;
}

/** What governance's lifecycle allows per status (lib/controlplane requireStatus), mirrored to show only usable buttons. */
const ACTIONS: TAction[] = [
  { key: "submit", label: "Submit for review", permission: "factor_list.submit", statuses: ["draft"], path: "submit", text: null },
  {
    key: "approve",
    label: "Approve",
    permission: "factor_list.approve",
    statuses: ["in_review"],
    path: "approve",
    text: { field: "comment", required: false, label: "Comment (optional)" },
    standing: "approve",
  },
  {
    key: "approve-compliance",
    label: "Approve as compliance",
    permission: "factor_list.approve_compliance",
    statuses: ["in_review"],
    path: "approve-compliance",
    text: { field: "comment", required: false, label: "Comment (optional)" },
    standing: "approveCompliance",
  },
  {
    key: "reject",
    label: "Reject…",
    permission: "factor_list.reject",
    statuses: ["in_review"],
    path: "reject",
    text: { field: "comment", required: true, label: "Why it is rejected" },
    danger: true,
    standing: "reject",
  },
  {
    key: "activate",
    label: "Activate",
    permission: "factor_list.activate",
    statuses: ["approved", "shadow"],
    path: "activate",
    text: { field: "reason", required: false, label: "Reason (optional)" },
    locked: true,
    standing: "activate",
  },
  {
    key: "shadow",
    label: "Run in shadow",
    permission: "factor_list.shadow",
    statuses: ["approved"],
    path: "shadow",
    text: { field: "reason", required: false, label: "Reason (optional)" },
    locked: true,
  },
  {
    key: "end-shadow",
    label: "End shadow",
    permission: "factor_list.shadow",
    statuses: ["shadow"],
    path: "end-shadow",
    text: { field: "reason", required: false, label: "Reason (optional)" },
    locked: true,
  },
  {
    key: "rollback",
    label: "Roll back to this version…",
    permission: "factor_list.rollback",
    statuses: ["superseded"],
    path: "rollback",
    text: { field: "reason", required: true, label: "Why roll back" },
    locked: true,
    danger: true,
    onlyOnceActive: true,
  },
];

/** The actions this person may take on this version now, with "roll back to the previous version" on the active one. */
function visibleActions({
  status,
  wasActive,
  permissions,
  may,
  previousActive,
}: {
  status: string;
  wasActive: boolean;
  permissions: TPermission[];
  may: TReviewStanding["may"];
  previousActive: { id: string; version: number } | null;
}): TAction[] {
  const rollbackPrevious: TAction[] =
    previousActive && status === "active" && permissions.includes("factor_list.rollback")
      ? [{ ...ACTIONS.find((a) => a.key === "rollback")!, key: "rollback-previous", label: `Roll back to v${previousActive.version}…`, statuses: ["active"] }]
      : [];
  return [
    ...ACTIONS.filter(
      (a) => permissions.includes(a.permission) && a.statuses.includes(status) && (!a.onlyOnceActive || wasActive) && (!a.standing || may[a.standing]),
    ),
    ...rollbackPrevious,
  ];
}

export function VersionActions({
  id,
  version,
  status,
  wasActive,
  lockVersion,
  permissions,
  may,
  weakenings = [],
  note = null,
  previousActive = null,
}: {
  id: string;
  version: number;
  status: string;
  wasActive: boolean;
  lockVersion: number;
  permissions: TPermission[];
  /** The review actions this person may take now (lib/controlplane/reviews/review-standing.ts). */
  may: TReviewStanding["may"];
  /** How activating this version loosens compliance: the activate dialog shows it and asks for a confirmation and a reason. */
  weakenings?: string[];
  /** The standing in words: what the version still waits for after your review, or why your own change is not yours to approve. */
  note?: string | null;
  /** On the active version's page: the version live before it, which rollback re-activates (the same endpoint and checks as from its own page). */
  previousActive?: { id: string; version: number } | null;
}) {
  const router = useRouter();
  const [open, setOpen] = useState<TAction | null>(null);
  const [text, setText] = useState("");
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<TControlError | null>(null);
  const [confirmed, setConfirmed] = useState(false);
  const close = useCallback(() => setOpen(null), []);
  const visible = visibleActions({ status, wasActive, permissions, may, previousActive });
  const canEdit = permissions.includes("factor_list.edit") && ["draft", "in_review", "rejected"].includes(status);

  const weakens = (a: TAction) => a.key === "activate" && weakenings.length > 0;
  const run = async (a: TAction) => {
    setBusy(true);
    setError(null);
    const body = {
      ...(a.text && text.trim() ? { [a.text.field]: text.trim() } : {}),
      ...(a.locked ? { expectedLockVersion: lockVersion } : {}),
      ...(weakens(a) ? { confirmComplianceWeakening: true } : {}),
    };
    const target = a.key === "rollback-previous" && previousActive ? previousActive.id : id;
    const res = await controlRequest<{ version?: { id: string } }>(`/api/control/factor-lists/${target}/${a.path}`, "POST", body);
    setBusy(false);
    setOpen(null);
    if (!res.ok) {
      setError(res.error);
      // The refusal usually means the version moved on (another review, a revision): show it as it is now.
      router.refresh();
      return;
    }
    setText("");
    if ((a.key === "rollback" || a.key === "rollback-previous") && res.value.version) router.push(`/factor-lists/${res.value.version.id}`);
    router.refresh();
  };

  if (visible.length === 0 && !canEdit && !note && !error) return null;
  return (
    <div className="flex flex-col gap-2" data-testid="version-actions">
      <div className="flex flex-wrap gap-2">
        {canEdit ? (
          <Link className="btn" href={`/factor-lists/${id}/edit`} data-testid="action-edit">
            {status === "draft" ? "Edit" : "Revise (revokes approvals)"}
          </Link>
        ) : null}
        {visible.map((a) => (
          <button
            key={a.key}
            type="button"
            className={`btn ${a.danger ? "btn-danger" : ""}`}
            disabled={busy}
            onClick={() => {
              setError(null);
              setText("");
              setConfirmed(false);
              if (a.text) setOpen(a);
              else void run(a);
            }}
            data-testid={`action-${a.key}`}
          >
            {a.label}
          </button>
        ))}
      </div>
      {note ? (
        <p className="muted text-sm" data-testid="review-note">
          {note}
        </p>
      ) : null}
      <ControlErrorView error={error} plain={error ? plainRefusal(error.code, error.status) : null} />
      {open?.text ? (
        <ActionDialog
          action={open}
          version={version}
          weakenings={weakens(open) ? weakenings : []}
          text={text}
          setText={setText}
          confirmed={confirmed}
          setConfirmed={setConfirmed}
          busy={busy}
          onClose={close}
          onConfirm={() => void run(open)}
        />
      ) : null}
    </div>
  );
}

/** The dialog an action with a text field opens; a compliance-weakening activation also asks for a confirmation. */
function ActionDialog({
  action,
  version,
  weakenings,
  text,
  setText,
  confirmed,
  setConfirmed,
  busy,
  onClose,
  onConfirm,
}: {
  action: TAction;
  version: number;
  /** Non-empty only when this action activates a version that loosens compliance. */
  weakenings: string[];
  text: string;
  setText: (value: string) => void;
  confirmed: boolean;
  setConfirmed: (value: boolean) => void;
  busy: boolean;
  onClose: () => void;
  onConfirm: () => void;
}) {
  const weakening = weakenings.length > 0;
  const name = action.label.replace("…", "");
  return (
    <ConfirmDialog
      title={action.key === "rollback-previous" ? `${name} · replacing active v${version}` : `${name} · version ${version}`}
      open
      onClose={onClose}
      onConfirm={onConfirm}
      canSubmit={weakening ? confirmed && text.trim().length > 0 : !action.text?.required || text.trim().length > 0}
      busy={busy}
      confirmLabel={name}
      danger={action.danger || weakening}
    >
      {weakening ? (
        <div className="flex flex-col gap-1 text-sm" data-testid="weakening-confirm">
          <p style={{ color: "var(--bad)" }}>This version loosens compliance against the live one:</p>
          <ul className="list-disc pl-5">
            {weakenings.map((w) => (
              <li key={w}>{w}</li>
            ))}
          </ul>
          <label className="flex items-center gap-2">
            <input type="checkbox" checked={confirmed} onChange={(e) => setConfirmed(e.target.checked)} data-testid="confirm-weakening" />I have read the
            compliance impact and activate it anyway
          </label>
        </div>
      ) : null}
      <label className="flex flex-col gap-1 text-sm">
        <span className="muted">{weakening ? "Why compliance is loosened (required)" : action.text?.label}</span>
        <textarea className="field" rows={3} value={text} onChange={(e) => setText(e.target.value)} data-testid="action-text" />
      </label>
    </ConfirmDialog>
  );
}

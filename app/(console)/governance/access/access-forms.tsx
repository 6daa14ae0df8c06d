"use client";

import { useActionState } from "react";
import type { TActionResult } from "@/lib/auth/with-action-permission";
import { API_KEY_SCOPES } from "@/lib/auth/api-key-scopes";
import { ROLES } from "@/lib/auth/permissions";
import {
  confirmRoleGrantAction,
  createApiKeyAction,
  createUserAction,
  rejectRoleGrantAction,
  revokeApiKeyAction,
  revokeUserSessionsAction,
  setUserRolesAction,
} from "./actions";

type TState<R> = TActionResult<R> | null;

function Problem({ state }: { state: TState<unknown> }) {
  if (!state || state.ok) return null;
  return (
    <div role="alert" className="text-xs" style={{ color: "var(--bad)" }}>
      {state.error.message}
      {(state.error.fields ?? []).map((f) => (
        <div key={f.path}>
          {f.path}: {f.message}
        </div>
      ))}
    </div>
  );
}

const inputStyle = { borderColor: "var(--border)" };

function Pending({ roles }: { roles: string[] }) {
  if (roles.length === 0) return null;
  return <span data-testid="grant-pending"> {roles.join(", ")} waits for a second admin to confirm it.</span>;
}

export function CreateApiKeyForm() {
  const [state, action, pending] = useActionState(createApiKeyAction, null as TState<{ key: string; prefix: string }>);
  return (
    <form action={action} className="flex flex-col gap-2 p-3" data-testid="create-api-key">
      <div className="flex flex-wrap items-center gap-3">
        <input name="name" placeholder="service name" className="rounded border px-2 py-1" style={inputStyle} required />
        {API_KEY_SCOPES.map((s) => (
          <label key={s} className="flex items-center gap-1 text-sm">
            <input type="checkbox" name="scopes" value={s} defaultChecked={s === "decide"} /> {s}
          </label>
        ))}
        <input name="operationKeys" placeholder="operations (blank: all)" className="rounded border px-2 py-1" style={inputStyle} />
        <button type="submit" disabled={pending} className="rounded px-3 py-1 text-sm" style={{ background: "var(--accent)", color: "var(--panel)" }}>
          Create key
        </button>
      </div>
      {state?.ok && (
        <p className="text-sm" data-testid="new-api-key">
          Copy it now, it is not shown again: <code className="mono select-all">{state.value.key}</code>
        </p>
      )}
      <Problem state={state} />
    </form>
  );
}

export function RevokeApiKeyButton({ id }: { id: string }) {
  const [state, action, pending] = useActionState(revokeApiKeyAction, null as TState<null>);
  return (
    <form action={action}>
      <input type="hidden" name="id" value={id} />
      <button type="submit" disabled={pending} className="text-xs underline" style={{ color: "var(--bad)" }}>
        Revoke
      </button>
      <Problem state={state} />
    </form>
  );
}

export function CreateUserForm() {
  const [state, action, pending] = useActionState(createUserAction, null as TState<{ email: string; pendingRoles: string[] }>);
  return (
    <form action={action} className="flex flex-col gap-2 p-3" data-testid="create-user">
      <div className="flex flex-wrap items-center gap-3">
        <input name="email" type="email" placeholder="email" className="rounded border px-2 py-1" style={inputStyle} required />
        <input name="name" placeholder="name" className="rounded border px-2 py-1" style={inputStyle} required />
        <input
          name="password"
          type="password"
          placeholder="initial password (12+)"
          autoComplete="new-password"
          className="rounded border px-2 py-1"
          style={inputStyle}
          required
        />
        {ROLES.map((r) => (
          <label key={r} className="flex items-center gap-1 text-sm">
            <input type="checkbox" name="roles" value={r} defaultChecked={r === "viewer"} /> {r}
          </label>
        ))}
        <button type="submit" disabled={pending} className="rounded px-3 py-1 text-sm" style={{ background: "var(--accent)", color: "var(--panel)" }}>
          Create user
        </button>
      </div>
      {state?.ok && (
        <p className="text-sm">
          Created {state.value.email}.<Pending roles={state.value.pendingRoles} />
        </p>
      )}
      <Problem state={state} />
    </form>
  );
}

export function UserRolesForm({ id, roles }: { id: string; roles: string[] }) {
  const [state, action, pending] = useActionState(setUserRolesAction, null as TState<{ pendingRoles: string[] }>);
  const [revokeState, revoke, revoking] = useActionState(revokeUserSessionsAction, null as TState<{ revoked: number }>);
  return (
    <div className="flex flex-wrap items-center gap-3">
      <form action={action} className="flex flex-wrap items-center gap-2">
        <input type="hidden" name="id" value={id} />
        {ROLES.map((r) => (
          <label key={r} className="flex items-center gap-1 text-xs">
            <input type="checkbox" name="roles" value={r} defaultChecked={roles.includes(r)} /> {r}
          </label>
        ))}
        <button type="submit" disabled={pending} className="text-xs underline">
          Save roles
        </button>
        {state?.ok && state.value.pendingRoles.length > 0 && (
          <span className="text-xs">
            <Pending roles={state.value.pendingRoles} />
          </span>
        )}
        <Problem state={state} />
      </form>
      <form action={revoke}>
        <input type="hidden" name="id" value={id} />
        <button type="submit" disabled={revoking} className="text-xs underline">
          Sign out everywhere
        </button>
        {revokeState?.ok && <span className="text-xs"> {revokeState.value.revoked} sessions ended</span>}
        <Problem state={revokeState} />
      </form>
    </div>
  );
}

/** Confirm or reject a pending grant of admin, approver or compliance (a second admin's decision). */
export function RoleGrantDecision({ id, canConfirm }: { id: string; canConfirm: boolean }) {
  const [confirmState, confirm, confirming] = useActionState(confirmRoleGrantAction, null as TState<null>);
  const [rejectState, reject, rejecting] = useActionState(rejectRoleGrantAction, null as TState<null>);
  return (
    <div className="flex flex-wrap items-center gap-3">
      {canConfirm && (
        <form action={confirm}>
          <input type="hidden" name="id" value={id} />
          <button type="submit" disabled={confirming} className="text-xs underline" data-testid="grant-confirm">
            Confirm
          </button>
          <Problem state={confirmState} />
        </form>
      )}
      <form action={reject}>
        <input type="hidden" name="id" value={id} />
        <button type="submit" disabled={rejecting} className="text-xs underline" style={{ color: "var(--bad)" }} data-testid="grant-reject">
          Reject
        </button>
        <Problem state={rejectState} />
      </form>
    </div>
  );
}

"use client";

import { useActionState } from "react";
import type { TActionResult } from "@/lib/auth/with-action-permission";
import { changeOwnPasswordAction, disableUserAction, enableUserAction, resetPasswordAction } from "./actions";

type TState<R> = TActionResult<R> | null;

const inputStyle = { borderColor: "var(--border)" };

function Problem({ state, testId }: { state: TState<unknown>; testId?: string }) {
  if (!state || state.ok) return null;
  return (
    <div role="alert" className="text-xs" style={{ color: "var(--bad)" }} data-testid={testId}>
      {state.error.message}
      {(state.error.fields ?? []).map((f) => (
        <div key={f.path}>
          {f.path}: {f.message}
        </div>
      ))}
    </div>
  );
}

/** One's own password: the current one, then the new one (the policy's refusal names the field). */
export function ChangePasswordForm() {
  const [state, action, pending] = useActionState(changeOwnPasswordAction, null as TState<{ otherSessionsRevoked: number }>);
  return (
    <form action={action} className="flex flex-col gap-2 p-3" data-testid="change-password">
      <div className="flex flex-wrap items-center gap-3">
        <input
          name="currentPassword"
          type="password"
          placeholder="current password"
          autoComplete="current-password"
          className="rounded border px-2 py-1"
          style={inputStyle}
          required
        />
        <input
          name="newPassword"
          type="password"
          placeholder="new password (12+, not a common one)"
          autoComplete="new-password"
          className="rounded border px-2 py-1"
          style={inputStyle}
          required
        />
        <button type="submit" disabled={pending} className="rounded px-3 py-1 text-sm" style={{ background: "var(--accent)", color: "var(--panel)" }}>
          Change password
        </button>
      </div>
      {state?.ok && (
        <p className="text-sm" data-testid="password-changed">
          Password changed; {state.value.otherSessionsRevoked} other sessions signed out.
        </p>
      )}
      <Problem state={state} testId="change-password-problem" />
    </form>
  );
}

/** An admin's tools for someone else's account: reset the password, disable or enable. */
export function AccountActions({ id, disabled }: { id: string; disabled: boolean }) {
  const [resetState, reset, resetting] = useActionState(resetPasswordAction, null as TState<{ sessionsRevoked: number }>);
  const [disableState, disable, disabling] = useActionState(disabled ? enableUserAction : disableUserAction, null as TState<unknown>);
  return (
    <div className="flex flex-wrap items-center gap-3">
      {!disabled && (
        <form action={reset} className="flex items-center gap-2" data-testid="reset-password">
          <input type="hidden" name="id" value={id} />
          <input
            name="password"
            type="password"
            placeholder="new password"
            autoComplete="new-password"
            className="rounded border px-1 py-0.5 text-xs"
            style={inputStyle}
            required
          />
          <button type="submit" disabled={resetting} className="text-xs underline">
            Reset password
          </button>
          {resetState?.ok && <span className="text-xs"> reset; {resetState.value.sessionsRevoked} sessions ended</span>}
          <Problem state={resetState} testId="reset-password-problem" />
        </form>
      )}
      <form action={disable}>
        <input type="hidden" name="id" value={id} />
        <button
          type="submit"
          disabled={disabling}
          className="text-xs underline"
          style={{ color: disabled ? undefined : "var(--bad)" }}
          data-testid={disabled ? "enable-user" : "disable-user"}
        >
          {disabled ? "Enable" : "Disable"}
        </button>
        <Problem state={disableState} />
      </form>
    </div>
  );
}

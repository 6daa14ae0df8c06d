import { resolveCredential } from "../gateway";
import type { TCredentialState } from "./schemas";

/**
 * Whether a credential reference resolves on this instance (the variable is set, the file is
 * readable). Only the state leaves this function, never the value.
 */
export function credentialState(ref: string | null, env: Readonly<Record<string, string | undefined>> = process.env): TCredentialState {
  if (ref === null) return "none";
  return resolveCredential(ref, env).ok ? "resolved" : "missing";
}

/** The routing gate's vocabulary (provider.credential_status) for a reference's state. */
export function credentialStatusOf(ref: string | null, env: Readonly<Record<string, string | undefined>> = process.env): "valid" | "missing" {
  return credentialState(ref, env) === "missing" ? "missing" : "valid";
}

import type { TPermission } from "./permissions";

/**
 * Every control-plane handler and server action is created through withPermission (or
 * withActionPermission), which records the permission it declared here. The authorisation
 * matrix test walks app/api/control and fails on any exported handler missing from this map.
 */
const declared = new WeakMap<object, { permission: TPermission; kind: "route" | "action" }>();

export function registerHandler(fn: object, permission: TPermission, kind: "route" | "action"): void {
  declared.set(fn, { permission, kind });
}

export function declaredPermission(fn: unknown): TPermission | null {
  return typeof fn === "function" ? (declared.get(fn)?.permission ?? null) : null;
}

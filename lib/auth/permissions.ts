/**
 * Permissions are data: a const list of actions and a role → actions table. A permission a
 * role's row does not name is denied; there is no wildcard, so a new permission is denied to
 * every role until someone grants it here.
 */
export const PERMISSIONS = [
  "routing.read",
  "factor_list.read",
  "factor_list.create",
  "factor_list.edit",
  "factor_list.submit",
  "factor_list.approve",
  "factor_list.approve_compliance",
  "factor_list.reject",
  "factor_list.activate",
  "factor_list.shadow",
  "factor_list.rollback",
  "override.read",
  "override.create",
  "override.end",
  "api_key.read",
  "api_key.create",
  "api_key.revoke",
  "user.read",
  "user.create",
  "user.set_roles",
  "user.revoke_sessions",
  "user.reset_password",
  "user.disable",
  "account.change_password",
  "audit.read",
  "audit.export",
  "demo.chaos",
  "evaluation.run",
  "catalog.read",
  "catalog.edit",
  "catalog.approve_compliance",
  "notification.manage",
] as const;

export type TPermission = (typeof PERMISSIONS)[number];

export const ROLES = ["viewer", "on_call", "policy_author", "compliance", "approver", "admin"] as const;
export type TRole = (typeof ROLES)[number];

/** "Read everything" (the viewer role); every other role starts from it. */
const READ: readonly TPermission[] = [
  "routing.read",
  "factor_list.read",
  "override.read",
  "api_key.read",
  "user.read",
  "audit.read",
  "audit.export",
  "catalog.read",
  // Everyone who can sign in may change their own password (it asks for the current one).
  "account.change_password",
];

/**
 * Separation of duties (the paper's section 5, docs/references.md): authors write policy, approvers and compliance
 * review and put it live, on-call overrides automation during incidents, admins manage
 * people and keys but cannot approve or activate routing policy themselves.
 */
export const ROLE_PERMISSIONS: Readonly<Record<TRole, readonly TPermission[]>> = {
  viewer: READ,
  on_call: [...READ, "override.create", "override.end", "factor_list.rollback"],
  // evaluation.run: a replay keeps a core busy for seconds, so only those who write or review policy start one.
  policy_author: [...READ, "factor_list.create", "factor_list.edit", "factor_list.submit", "evaluation.run"],
  // catalog.approve_compliance: approve or reject catalogue changes that move compliance (certifications, regions, requirements).
  compliance: [...READ, "factor_list.approve_compliance", "factor_list.reject", "evaluation.run", "catalog.approve_compliance"],
  approver: [...READ, "evaluation.run", "factor_list.approve", "factor_list.reject", "factor_list.activate", "factor_list.shadow", "factor_list.rollback"],
  // demo.chaos: injecting simulated provider faults (demo mode only, also checked by the route).
  // catalog.edit: providers, operations, adapters and gateway limits; what moves compliance still waits for compliance.
  // user.reset_password: of someone else without a privileged role; user.disable: signs them out, stops their control keys.
  admin: [
    ...READ,
    "api_key.create",
    "api_key.revoke",
    "user.create",
    "user.set_roles",
    "user.revoke_sessions",
    "user.reset_password",
    "user.disable",
    "demo.chaos",
    "catalog.edit",
    // notification.manage: channels, their routes and test sends (where alerts go, and which secret reference they use).
    "notification.manage",
  ],
};

export function roleGrants(role: TRole, permission: TPermission): boolean {
  return ROLE_PERMISSIONS[role].includes(permission);
}

export function rolesGrant(roles: readonly TRole[], permission: TPermission): boolean {
  return roles.some((r) => roleGrants(r, permission));
}

export function permissionsOf(roles: readonly TRole[]): TPermission[] {
  return PERMISSIONS.filter((p) => rolesGrant(roles, p));
}

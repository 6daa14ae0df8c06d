import { cookies } from "next/headers";
import { redirect } from "next/navigation";
import { DataTable } from "@/components/data-table";
import { getPrisma } from "@/lib/db/client";
import { isDemoMode } from "@/lib/auth/demo-mode";
import { rolesGrant } from "@/lib/auth/permissions";
import { SESSION_COOKIE, resolveSession } from "@/lib/auth/session";
import { listApiKeys } from "@/lib/controlplane/api-keys/list-api-keys";
import { listRoleGrants } from "@/lib/controlplane/role-grants/list-role-grants";
import { listUsers } from "@/lib/controlplane/users/list-users";
import { CreateApiKeyForm, CreateUserForm, RevokeApiKeyButton, RoleGrantDecision, UserRolesForm } from "./access-forms";
import { AccountActions, ChangePasswordForm } from "./account-forms";
import { PageTitle } from "@/components/page-title";

export const dynamic = "force-dynamic";

const when = (d: Date | null) => (d ? d.toISOString().replace("T", " ").slice(0, 19) : "—");

/** Users and API keys: everyone may look; only admins see the forms (the actions re-check). */
export default async function AccessPage() {
  const prisma = getPrisma();
  const me = await resolveSession(prisma, (await cookies()).get(SESSION_COOKIE)?.value);
  if (!me) redirect("/login?next=/governance/access");
  const [users, keys, grants] = await Promise.all([listUsers(prisma), listApiKeys(prisma), listRoleGrants(prisma)]);
  const admin = rolesGrant(me.roles, "user.set_roles");
  const pending = grants.filter((g) => g.status === "pending");
  const recent = grants.filter((g) => g.status !== "pending").slice(0, 20);
  /** Users holding a privileged role that took effect while only one admin existed. */
  const singleAdminGrants = new Set(grants.filter((g) => g.status === "applied" && g.singleAdmin).map((g) => g.userId));
  const admins = users.filter((u) => u.roles.includes("admin") && !u.disabledAt && (!u.demo || isDemoMode())).length;

  return (
    <div className="flex flex-col gap-5">
      <PageTitle>Users &amp; keys</PageTitle>
      <section className="panel">
        <h2 className="px-3 pt-3 pb-2 text-sm font-semibold">API keys</h2>
        {admin && <CreateApiKeyForm />}
        <DataTable
          columns={["Name", "Prefix", "Scopes", "Operations", "Owner", "Created", "Last used", "Revoked", ""]}
          empty="No API key yet: data-plane callers use the bootstrap key until an admin creates scoped ones."
          testId="api-keys-table"
        >
          {keys.map((k) => (
            <tr key={k.id}>
              <td>{k.name}</td>
              <td className="mono">sy_{k.prefix}_…</td>
              <td>{k.scopes.join(", ")}</td>
              <td>{k.operationKeys.join(", ") || "all"}</td>
              <td data-testid="api-key-owner" title="a control key acts with at most its owner's current permissions">
                {k.owner ? `${k.owner.email}${k.owner.disabled ? " (disabled)" : ""}` : "— (operator)"}
              </td>
              <td>{when(k.createdAt)}</td>
              <td>{when(k.lastUsedAt)}</td>
              <td>{when(k.revokedAt)}</td>
              <td>{admin && !k.revokedAt && <RevokeApiKeyButton id={k.id} />}</td>
            </tr>
          ))}
        </DataTable>
      </section>
      <section className="panel">
        <h2 className="px-3 pt-3 pb-2 text-sm font-semibold">Users</h2>
        {admins < 2 && (
          <p className="px-3 pb-2 text-xs" style={{ color: "var(--warn)" }} data-testid="single-admin-notice">
            Only one admin: grants of admin, approver and compliance take effect at once and are marked &ldquo;single admin&rdquo; in the audit log. Once a
            second admin exists, each such grant waits for another admin to confirm it.
          </p>
        )}
        {admin && <CreateUserForm />}
        <DataTable columns={["Email", "Name", "Roles", admin ? "Account" : ""]} empty="No user yet." testId="users-table">
          {users.map((u) => (
            <tr key={u.id} data-testid={`user-row-${u.email}`}>
              <td>
                {u.email}
                {u.demo && " (demo)"}
                {u.disabledAt && (
                  <span className="ml-2 text-xs" style={{ color: "var(--bad)" }} data-testid="user-disabled">
                    disabled
                  </span>
                )}
              </td>
              <td>{u.name}</td>
              <td>
                {admin && u.id !== me.userId ? <UserRolesForm id={u.id} roles={u.roles} /> : u.roles.join(", ")}
                {singleAdminGrants.has(u.id) && (
                  <span className="ml-2 text-xs" style={{ color: "var(--muted)" }} data-testid="single-admin-mark" title="granted while only one admin existed">
                    (single admin)
                  </span>
                )}
              </td>
              <td>{admin && u.id !== me.userId && <AccountActions id={u.id} disabled={u.disabledAt !== null} />}</td>
            </tr>
          ))}
        </DataTable>
      </section>
      <section className="panel">
        <h2 className="px-3 pt-3 pb-2 text-sm font-semibold">Your password</h2>
        <ChangePasswordForm />
      </section>
      <section className="panel">
        <h2 className="px-3 pt-3 pb-2 text-sm font-semibold">Role grants waiting for a second admin</h2>
        <DataTable columns={["User", "Roles", "Asked by", "Asked", ""]} empty="No grant waiting." testId="pending-grants-table">
          {pending.map((g) => (
            <tr key={g.id}>
              <td>{g.userEmail}</td>
              <td>{g.roles.join(", ")}</td>
              <td>{g.requestedBy ?? "—"}</td>
              <td>{when(g.requestedAt)}</td>
              <td>{admin && g.userId !== me.userId && <RoleGrantDecision id={g.id} canConfirm={g.requestedById !== me.userId} />}</td>
            </tr>
          ))}
        </DataTable>
        <h2 className="px-3 pt-3 pb-2 text-sm font-semibold">Recent role grants</h2>
        <DataTable columns={["User", "Roles", "Status", "Asked by", "Decided by", "When"]} empty="No grant yet." testId="role-grants-table">
          {recent.map((g) => (
            <tr key={g.id}>
              <td>{g.userEmail}</td>
              <td>{g.roles.join(", ")}</td>
              <td>{g.status === "applied" && g.singleAdmin ? "applied (single admin)" : g.status}</td>
              <td>{g.requestedBy ?? "—"}</td>
              <td>{g.decidedBy ?? "—"}</td>
              <td>{when(g.decidedAt ?? g.requestedAt)}</td>
            </tr>
          ))}
        </DataTable>
      </section>
    </div>
  );
}

import { cookies } from "next/headers";
import { redirect } from "next/navigation";
import { DataTable } from "@/components/data-table";
import { getPrisma } from "@/lib/db/client";
import { rolesGrant } from "@/lib/auth/permissions";
import { SESSION_COOKIE, resolveSession } from "@/lib/auth/session";
import { listApiKeys } from "@/lib/controlplane/list-api-keys";
import { listUsers } from "@/lib/controlplane/list-users";
import { CreateApiKeyForm, CreateUserForm, RevokeApiKeyButton, UserRolesForm } from "./access-forms";

export const dynamic = "force-dynamic";

const when = (d: Date | null) => (d ? d.toISOString().replace("T", " ").slice(0, 19) : "—");

/** Users and API keys: everyone may look; only admins see the forms (the actions re-check). */
export default async function AccessPage() {
  const prisma = getPrisma();
  const me = await resolveSession(prisma, (await cookies()).get(SESSION_COOKIE)?.value);
  if (!me) redirect("/login?next=/governance/access");
  const [users, keys] = await Promise.all([listUsers(prisma), listApiKeys(prisma)]);
  const admin = rolesGrant(me.roles, "user.set_roles");

  return (
    <div className="flex flex-col gap-5">
      <section className="panel">
        <h2 className="px-3 pt-3 pb-2 text-sm font-semibold">API keys</h2>
        {admin && <CreateApiKeyForm />}
        <DataTable columns={["Name", "Prefix", "Scopes", "Operations", "Created", "Last used", "Revoked", ""]} empty="No API key yet: data-plane callers use the bootstrap key until an admin creates scoped ones." testId="api-keys-table">
          {keys.map((k) => (
            <tr key={k.id}>
              <td>{k.name}</td>
              <td className="mono">sy_{k.prefix}_…</td>
              <td>{k.scopes.join(", ")}</td>
              <td>{k.operationKeys.join(", ") || "all"}</td>
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
        {admin && <CreateUserForm />}
        <DataTable columns={["Email", "Name", "Roles"]} empty="No user yet." testId="users-table">
          {users.map((u) => (
            <tr key={u.id}>
              <td>
                {u.email}
                {u.demo && " (demo)"}
              </td>
              <td>{u.name}</td>
              <td>{admin ? <UserRolesForm id={u.id} roles={u.roles} /> : u.roles.join(", ")}</td>
            </tr>
          ))}
        </DataTable>
      </section>
    </div>
  );
}

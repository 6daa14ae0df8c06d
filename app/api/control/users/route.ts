import { readJson, withPermission } from "@/lib/auth/with-permission";
import { ZCreateUserBody, createUser } from "@/lib/controlplane/users/create-user";
import { parseInput } from "@/lib/errors/api-errors";
import { listUsers } from "@/lib/controlplane/users/list-users";

export const GET = withPermission("user.read", async ({ prisma }) => {
  return Response.json({ users: await listUsers(prisma) });
});

/** 201 with the user; pendingGrant is set when privileged roles wait for a second admin. */
export const POST = withPermission("user.create", async ({ req, prisma, actor }) => {
  const body = parseInput(ZCreateUserBody, await readJson(req));
  return Response.json(await createUser(prisma, actor, body), { status: 201 });
});

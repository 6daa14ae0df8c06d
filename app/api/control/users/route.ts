import { readJson, withPermission } from "@/lib/auth/with-permission";
import { ZCreateUserBody, createUser } from "@/lib/controlplane/create-user";
import { parseInput } from "@/lib/controlplane/errors";
import { listUsers } from "@/lib/controlplane/list-users";

export const GET = withPermission("user.read", async ({ prisma }) => {
  return Response.json({ users: await listUsers(prisma) });
});

export const POST = withPermission("user.create", async ({ req, prisma, actor }) => {
  const body = parseInput(ZCreateUserBody, await readJson(req));
  return Response.json({ user: await createUser(prisma, actor, body) }, { status: 201 });
});

import { getPrisma } from "@/lib/db/client";
import { currentUser } from "@/lib/auth/current-user";
import { isDemoMode } from "@/lib/auth/demo-mode";
import { permissionsOf } from "@/lib/auth/permissions";
import { refusal } from "@/lib/auth/with-permission";

/** Who is signed in and what they may do, so the console can hide what would be refused. */
export async function GET(req: Request): Promise<Response> {
  const user = await currentUser(getPrisma(), req);
  if (!user) return refusal("unauthenticated", "not signed in");
  return Response.json({
    user: { id: user.userId, email: user.email, name: user.name, roles: user.roles },
    permissions: permissionsOf(user.roles),
    demoMode: isDemoMode(),
  });
}

import { withPermission } from "@/lib/auth/with-permission";
import { submitFactorList } from "@/lib/controlplane/factor-lists/submit-factor-list";

export const POST = withPermission("factor_list.submit", async ({ prisma, actor, params }) => {
  return Response.json({ version: await submitFactorList(prisma, actor, params.id ?? "") });
});

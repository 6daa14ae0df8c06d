import { z } from "zod";
import { withPermission } from "@/lib/auth/with-permission";
import { notFound } from "@/lib/errors/api-errors";
import { demoOnly } from "@/lib/demo/demo-only";
import { endFault } from "@/lib/demo/end-fault";

export const POST = withPermission("demo.chaos", ({ prisma, actor, params }) =>
  demoOnly(async () => {
    const id = params.id ?? "";
    if (!z.uuid().safeParse(id).success) throw notFound("demo fault", id);
    return Response.json({ fault: await endFault(prisma, actor, id) });
  }),
);

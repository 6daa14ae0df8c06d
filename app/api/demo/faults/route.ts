import { readJson, withPermission } from "@/lib/auth/with-permission";
import { parseInput } from "@/lib/errors/api-errors";
import { demoOnly } from "@/lib/demo/demo-only";
import { ZInjectFault } from "@/lib/demo/fault-model";
import { injectFault } from "@/lib/demo/inject-fault";
import { listFaults } from "@/lib/demo/list-faults";

const RECENT_MS = 60 * 60_000;

export const GET = withPermission("demo.chaos", ({ prisma }) =>
  demoOnly(async () => Response.json({ faults: await listFaults(prisma, RECENT_MS), now: Date.now() })),
);

export const POST = withPermission("demo.chaos", ({ req, prisma, actor }) =>
  demoOnly(async () => {
    const body = parseInput(ZInjectFault, await readJson(req));
    return Response.json({ fault: await injectFault(prisma, actor, body) }, { status: 201 });
  }),
);

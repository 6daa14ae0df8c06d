import { z } from "zod";
import { rolesGrant } from "@/lib/auth/permissions";
import { readJson, withPermission } from "@/lib/auth/with-permission";
import { consoleRoute } from "@/lib/console/console-route";
import { getEvaluation } from "@/lib/console/evaluation/get-evaluation";
import { requestEvaluation } from "@/lib/console/evaluation/request-evaluation";

const ZQuery = z.object({ version: z.string().min(1) });

export const GET = consoleRoute(ZQuery, (q, _req, principal) => getEvaluation(q.version, { canRun: rolesGrant(principal.roles, "evaluation.run") }));

export const POST = withPermission("evaluation.run", async ({ req, principal }) => {
  const { view, started } = await requestEvaluation(await readJson(req), principal.email);
  return Response.json(view, { status: started ? 202 : 200 });
});

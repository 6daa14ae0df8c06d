import { queryOf, readJson, withPermission } from "@/lib/auth/with-permission";
import { getWhatIf, requestWhatIf } from "@/lib/console/evaluation/what-if-jobs";

export const GET = withPermission("routing.read", async ({ req }) => {
  const q = queryOf(req);
  const view = await getWhatIf({ version: q.version, ...(q.hours !== undefined ? { hours: Number(q.hours) } : {}) });
  return Response.json(view, { headers: { "cache-control": "no-store" } });
});

export const POST = withPermission("evaluation.run", async ({ req, principal }) => Response.json(await requestWhatIf(await readJson(req), principal.email)));

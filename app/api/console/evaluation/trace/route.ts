import { z } from "zod";
import { consoleRoute } from "@/lib/console/console-route";
import { getEvaluationTrace } from "@/lib/console/evaluation/get-evaluation-trace";
import { POLICY_IDS, SCENARIO_IDS } from "@/router-core/replay";

const ZQuery = z.object({ version: z.string().min(1), scenario: z.enum(SCENARIO_IDS), policy: z.enum(POLICY_IDS) });

export const GET = consoleRoute(ZQuery, async (q) => getEvaluationTrace(q.version, q.scenario, q.policy));

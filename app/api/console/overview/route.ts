import { z } from "zod";
import { consoleRoute } from "@/lib/console/console-route";
import { getOverview } from "@/lib/console/get-overview";
import { RANGE_KEYS } from "@/lib/console/ranges";

const ZQuery = z.object({
  operation: z.string().min(1),
  region: z.string().min(1),
  range: z.enum(RANGE_KEYS).default("1h"),
});

export const GET = consoleRoute(ZQuery, (q) => getOverview(q.operation, q.region, q.range));

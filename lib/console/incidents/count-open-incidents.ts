import "server-only";
import { getPrisma } from "@/lib/db";
import { countOpenIncidents } from "@/lib/incidents/index";
import type { TViewer } from "../get-viewer";

/** The nav's count of open incidents: nothing for a signed-out visitor, whose pages show no data. */
export async function countOpenIncidentsFor(viewer: TViewer): Promise<number> {
  return viewer ? countOpenIncidents(getPrisma()) : 0;
}

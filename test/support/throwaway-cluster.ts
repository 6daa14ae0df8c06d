import { readdirSync, rmSync } from "node:fs";
import path from "node:path";
import { randomBytes } from "node:crypto";
import { startEmbeddedPostgres, type TEmbeddedDatabase } from "../../lib/db/embedded";
import { freePort } from "./free-port";

/**
 * A PostgreSQL cluster of its own for one test run (about two seconds to initialise), so
 * concurrent runs never share or stop each other's server; deleted when stopped.
 */
export async function startThrowawayCluster(): Promise<TEmbeddedDatabase> {
  const root = path.resolve(".data", "test-clusters");
  removeAbandoned(root);
  const dataDir = path.join(root, `${process.pid}-${randomBytes(3).toString("hex")}`);
  return startEmbeddedPostgres({ dataDir, port: await freePort(), ephemeral: true });
}

/** Clusters under `root` (named `<pid>-…`) left behind by runs killed before their teardown. */
export function removeAbandoned(root: string): void {
  let entries: string[] = [];
  try {
    entries = readdirSync(root);
  } catch {
    return;
  }
  for (const name of entries) {
    const pid = Number(name.split("-")[0]);
    if (!Number.isInteger(pid) || pid <= 0 || pid === process.pid) continue;
    try {
      process.kill(pid, 0);
    } catch {
      rmSync(path.join(root, name), { recursive: true, force: true });
    }
  }
}

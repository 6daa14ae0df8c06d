import type { TestProject } from "vitest/node";
import { assertReachable } from "../../lib/db/database-url";
import { startThrowawayCluster } from "./throwaway-cluster";

declare module "vitest" {
  export interface ProvidedContext {
    adminDatabaseUrl: string;
  }
}

/**
 * Every test file creates its own database on one server: DATABASE_URL's server when set,
 * otherwise a throwaway embedded cluster for this run alone.
 */
export default async function setup(project: TestProject) {
  const fromEnv = process.env.DATABASE_URL;
  if (fromEnv) {
    await assertReachable(fromEnv);
    project.provide("adminDatabaseUrl", fromEnv);
    return;
  }
  const cluster = await startThrowawayCluster();
  project.provide("adminDatabaseUrl", cluster.adminUrl);
  return async () => {
    await cluster.stop();
  };
}

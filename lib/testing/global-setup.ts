import path from "node:path";
import type { TestProject } from "vitest/node";
import { assertReachable } from "../db/database-url";
import { startEmbeddedPostgres } from "../db/embedded";

declare module "vitest" {
  export interface ProvidedContext {
    adminDatabaseUrl: string;
  }
}

/**
 * Every test file creates its own database on one server: DATABASE_URL's server when set,
 * otherwise an embedded cluster kept apart from the app's own data.
 */
export default async function setup(project: TestProject) {
  const fromEnv = process.env.DATABASE_URL;
  if (fromEnv) {
    await assertReachable(fromEnv);
    project.provide("adminDatabaseUrl", fromEnv);
    return;
  }
  const cluster = await startEmbeddedPostgres({
    dataDir: path.resolve(".data", "postgres-test"),
    port: Number(process.env.EMBEDDED_TEST_PG_PORT ?? 54330),
  });
  project.provide("adminDatabaseUrl", cluster.adminUrl);
  return async () => {
    await cluster.stop();
  };
}

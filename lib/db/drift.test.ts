import { adminDatabaseUrl } from "../../test/support/database";
import { mkdtemp, readFile, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { checkDrift, DEFAULT_SCHEMA_PATH, diffMigrationsToSchema } from "./drift";

// Each check runs on its own scratch database on this server, dropped afterwards.
const SERVER_URL = adminDatabaseUrl();

const tempDirs: string[] = [];
afterAll(() => Promise.all(tempDirs.map((dir) => rm(dir, { recursive: true, force: true }))));

describe("drift", () => {
  it("applying every migration to an empty database gives exactly prisma/schema.prisma", async () => {
    const result = await checkDrift(SERVER_URL);
    expect(result.sql).toBe("");
    expect(result.inSync).toBe(true);
  });

  it("reports the SQL a schema change still needs", async () => {
    const dir = await mkdtemp(path.join(tmpdir(), "switchyard-schema-"));
    tempDirs.push(dir);
    const schemaPath = path.join(dir, "schema.prisma");
    const schema = await readFile(DEFAULT_SCHEMA_PATH, "utf8");
    await writeFile(schemaPath, `${schema}\nmodel DriftProbe {\n  id Int @id\n  @@map("drift_probe")\n}\n`);

    const result = await checkDrift(SERVER_URL, { schemaPath });

    expect(result.inSync).toBe(false);
    expect(result.sql).toContain('CREATE TABLE "drift_probe"');
    expect(result.sql).not.toContain('CREATE TABLE "provider"');
  });

  it("from no migrations at all, the diff is the whole schema", async () => {
    const empty = await mkdtemp(path.join(tmpdir(), "switchyard-migrations-"));
    tempDirs.push(empty);
    const sql = await diffMigrationsToSchema(SERVER_URL, { migrationsDir: empty });
    expect(sql).toContain('CREATE TABLE "provider"');
    expect(sql).toContain('CREATE TABLE "operation"');
  });
});

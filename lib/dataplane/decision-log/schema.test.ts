import { mkdtemp, readFile, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import pg from "pg";
import { afterAll, describe, expect, it } from "vitest";
import { checkDrift, DEFAULT_SCHEMA_PATH } from "@/lib/db/drift";
import { adminDatabaseUrl, createTestDatabase } from "@/test/support/database";

// The migration makes "decision" a partitioned table, which prisma/schema.prisma cannot say. The
// drift check (lib/db/drift.test.ts) stays honest about it because it diffs a scratch database
// holding only the migrations: the parent has no partitions there, and Prisma introspects a
// partitioned parent's columns, keys and indexes like any table's, as these tests pin down.

const dirs: string[] = [];
afterAll(() => Promise.all(dirs.map((d) => rm(d, { recursive: true, force: true }))));

describe("decision table schema", () => {
  it("is range-partitioned on created_at by the migration", async () => {
    const db = await createTestDatabase();
    const client = new pg.Client({ connectionString: db.url });
    await client.connect();
    try {
      const { rows } = await client.query(
        `select c.relkind, pg_get_partkeydef(c.oid) as key from pg_class c where c.relname = 'decision' and c.relnamespace = current_schema()::regnamespace`,
      );
      expect(rows[0]).toEqual({ relkind: "p", key: "RANGE (created_at)" });
    } finally {
      await client.end();
      await db.drop();
    }
  });

  it("the drift check still sees changes to the partitioned table", async () => {
    const dir = await mkdtemp(path.join(tmpdir(), "sy-schema-"));
    dirs.push(dir);
    const schemaPath = path.join(dir, "schema.prisma");
    const schema = await readFile(DEFAULT_SCHEMA_PATH, "utf8");
    const changed = schema.replace(
      '  instanceId       String   @map("instance_id")\n',
      '  instanceId       String   @map("instance_id")\n  driftProbe       Int?     @map("drift_probe")\n',
    );
    expect(changed).not.toBe(schema);
    await writeFile(schemaPath, changed);
    const result = await checkDrift(adminDatabaseUrl(), { schemaPath });
    expect(result.inSync).toBe(false);
    expect(result.sql).toContain('ALTER TABLE "decision" ADD COLUMN     "drift_probe" INTEGER');
  });
});

import { defineConfig } from "prisma/config";

// Used by the Prisma CLI on connected machines (`prisma migrate deploy`); the app itself
// connects through lib/db and migrates with scripts/db-migrate.ts.
export default defineConfig({
  schema: "prisma/schema.prisma",
  migrations: { path: "prisma/migrations" },
  datasource: { url: process.env.DATABASE_URL ?? "postgresql://localhost:5432/switchyard" },
});

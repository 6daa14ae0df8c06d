import { resolveDatabaseUrl } from "../lib/db/database-url";
import { checkDrift } from "../lib/db/drift";
import { formatCliError } from "../lib/db/migrate";

// `npm run db:drift`: fails when applying every migration to an empty database does not give
// exactly prisma/schema.prisma, and prints the SQL a new migration would need.
async function main(): Promise<void> {
  const db = await resolveDatabaseUrl();
  try {
    const { inSync, sql } = await checkDrift(db.url);
    if (inSync) {
      console.log("No drift: the migrations produce exactly prisma/schema.prisma.");
      return;
    }
    console.error("Drift: prisma/schema.prisma differs from what the migrations produce. Missing SQL:\n");
    console.error(sql.trim());
    console.error("\nCreate a migration for it with: npm run db:migration:create -- --name <what_changed>");
    process.exitCode = 1;
  } finally {
    await db.stop();
  }
}

main().catch((err: unknown) => {
  console.error(`db:drift: ${formatCliError(err)}`);
  process.exitCode = 1;
});

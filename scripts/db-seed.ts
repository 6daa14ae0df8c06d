import { resolveDatabaseUrl } from "../lib/db/database-url";
import { applyMigrations, formatCliError } from "../lib/db/migrate";
import { createPrisma } from "../lib/db/client";
import { seedDemo } from "../lib/demo/seed-demo";

// `npm run db:seed`: migrate, then seed the demo catalogue and policy into an empty database.
async function main(): Promise<void> {
  const db = await resolveDatabaseUrl();
  const prisma = createPrisma(db.url);
  try {
    await applyMigrations(db.url);
    console.log((await seedDemo(prisma)) ? "Seeded the demo data." : "The database already holds data: nothing seeded.");
  } finally {
    await prisma.$disconnect();
    await db.stop();
  }
}

main().catch((err: unknown) => {
  console.error(`db:seed: ${formatCliError(err)}`);
  process.exit(1);
});

import { parseArgs } from "node:util";
import { createPrisma } from "../lib/db/client";
import { resolveDatabaseUrl } from "../lib/db/database-url";
import { applyMigrations, formatCliError } from "../lib/db/migrate";
import { createAdmin } from "../lib/controlplane/users/create-admin";
import { ContractError } from "../lib/errors/api-errors";

// `npm run user:create-admin -- --email a@b.c --password '…' [--name 'A B']`: creates an admin
// account in DATABASE_URL (or the embedded database). The password may come from
// SWITCHYARD_ADMIN_PASSWORD instead, to keep it out of the shell history.
async function main(): Promise<number> {
  const { values } = parseArgs({ options: { email: { type: "string" }, password: { type: "string" }, name: { type: "string" } } });
  const password = values.password ?? process.env.SWITCHYARD_ADMIN_PASSWORD;
  if (!values.email || !password) {
    console.error("usage: npm run user:create-admin -- --email <email> --password <password> [--name <name>]");
    return 2;
  }
  const db = await resolveDatabaseUrl();
  const prisma = createPrisma(db.url);
  try {
    await applyMigrations(db.url);
    const user = await createAdmin(prisma, { email: values.email, password, name: values.name });
    console.log(`created admin ${user.email} (${user.id})`);
    return 0;
  } catch (err) {
    if (!(err instanceof ContractError)) throw err;
    console.error(`user:create-admin: ${err.message}${err.fields.map((f) => `\n  ${f.path}: ${f.message}`).join("")}`);
    return 1;
  } finally {
    await prisma.$disconnect();
    await db.stop();
  }
}

main().then(
  (code) => process.exit(code),
  (err: unknown) => {
    console.error(`user:create-admin: ${formatCliError(err)}`);
    process.exit(1);
  },
);

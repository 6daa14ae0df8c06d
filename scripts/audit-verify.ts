import { createPrisma } from "../lib/db/client";
import { resolveDatabaseUrl } from "../lib/db/database-url";
import { formatCliError } from "../lib/db/migrate";
import { verifyAuditChain } from "../lib/audit/verify-audit-chain";

// `npm run audit:verify`: walk the audit log's hash chain in DATABASE_URL (or the embedded
// database) and exit 1 at the first broken link.
async function main(): Promise<number> {
  const db = await resolveDatabaseUrl();
  const prisma = createPrisma(db.url);
  try {
    const result = await verifyAuditChain(prisma);
    if (result.ok) {
      console.log(`audit log intact: ${result.entries} entries, head ${result.headHash}`);
      return 0;
    }
    console.error(`audit log BROKEN at entry ${result.firstBreak.seq} (${result.firstBreak.problem}): ${result.firstBreak.detail}`);
    console.error(`${result.entries} entries before it verified`);
    return 1;
  } finally {
    await prisma.$disconnect();
    await db.stop();
  }
}

main().then(
  (code) => process.exit(code),
  (err: unknown) => {
    console.error(`audit:verify: ${formatCliError(err)}`);
    process.exit(1);
  },
);

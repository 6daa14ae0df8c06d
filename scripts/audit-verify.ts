import { existsSync } from "node:fs";
import { createPrisma } from "../lib/db/client";
import { resolveDatabaseUrl } from "../lib/db/database-url";
import { formatCliError } from "../lib/db/migrate";
import { auditKeyId, demoAuditKeyPath, resolveAuditKey } from "../lib/audit/audit-key";
import { auditCheckpointDir, auditCheckpointFile, makeAuditCheckpoint, readAuditCheckpoints, type TAuditCheckpoint } from "../lib/audit/checkpoints";
import { verifyAuditChain } from "../lib/audit/verify-audit-chain";

const USAGE = `usage: npm run audit:verify [-- --checkpoints FILE ...]

Walks the audit log in DATABASE_URL (or the embedded database) and exits 1 at the first broken
link: hash links, MACs (with SWITCHYARD_AUDIT_KEY / SWITCHYARD_AUDIT_KEY_FILE, or the demo key
in .data/audit-key), and checkpoints of the head kept outside the database (by default the
database's file in SWITCHYARD_AUDIT_CHECKPOINT_DIR, .data/audit-checkpoints; --checkpoints
FILE, repeatable, instead: e.g. a copy the operator keeps elsewhere). Prints a checkpoint of
the current head to keep.`;

function parseArgs(argv: string[]): { files: string[] | null } {
  const files: string[] = [];
  for (let i = 0; i < argv.length; i++) {
    const a = argv[i]!;
    if (a === "--help" || a === "-h") {
      console.log(USAGE);
      process.exit(0);
    }
    if (a === "--checkpoints" && argv[i + 1]) files.push(argv[++i]!);
    else if (a.startsWith("--checkpoints=")) files.push(a.slice("--checkpoints=".length));
    else throw new Error(`unknown argument ${a}\n${USAGE}`);
  }
  return { files: files.length > 0 ? files : null };
}

async function main(): Promise<number> {
  const args = parseArgs(process.argv.slice(2));
  const db = await resolveDatabaseUrl();
  const prisma = createPrisma(db.url);
  try {
    // The embedded (demo) database's entries are MACed with the demo key the server generated.
    const env = { ...process.env };
    if (db.embedded && !env.SWITCHYARD_AUDIT_KEY && !env.SWITCHYARD_AUDIT_KEY_FILE && existsSync(demoAuditKeyPath()))
      env.SWITCHYARD_AUDIT_KEY_FILE = demoAuditKeyPath();
    const keyInfo = resolveAuditKey(env);
    const files = args.files ?? [auditCheckpointFile(auditCheckpointDir(env), db.url)];
    // Files the operator named must hold checkpoints; the default file may not exist yet.
    const checkpoints: TAuditCheckpoint[] = files.flatMap((f) => readAuditCheckpoints(f, { required: args.files !== null }));

    const result = await verifyAuditChain(prisma, { key: keyInfo.key, retired: keyInfo.retired, checkpoints });
    if (!result.ok) {
      console.error(`audit log BROKEN at entry ${result.firstBreak.seq} (${result.firstBreak.problem}): ${result.firstBreak.detail}`);
      console.error(`${result.entries} entries before it verified`);
      return 1;
    }
    console.log(`audit log intact: ${result.entries} entries, head entry ${result.headSeq} ${result.headHash}`);
    if (keyInfo.key) {
      const unauth = result.unauthenticated;
      console.log(`MACs: verified with the key from ${keyInfo.source === "env" ? "SWITCHYARD_AUDIT_KEY" : keyInfo.detail} (${auditKeyId(keyInfo.key)})`);
      if (keyInfo.retired.length > 0)
        console.log(
          `retired keys: ${keyInfo.retired.map(auditKeyId).join(", ")} (oldest first); ${result.retiredUntil === null ? "no entry is MACed with one" : `entries up to ${result.retiredUntil} are MACed with one`}`,
        );
      if (unauth) console.log(`WARNING: entries ${unauth.from}–${unauth.to} carry no MAC (written before a key was configured); only checkpoints protect them`);
    } else {
      console.log(
        "WARNING: MACs not checked: no audit key (SWITCHYARD_AUDIT_KEY or SWITCHYARD_AUDIT_KEY_FILE); a chain rewritten and recomputed after the last checkpoint is not detectable",
      );
    }
    if (checkpoints.length > 0) {
      const lastCp = checkpoints.reduce((a, c) => (c.seq > a.seq ? c : a));
      console.log(`checkpoints: ${checkpoints.length} in ${files.join(", ")} hold (latest: entry ${lastCp.seq} of ${lastCp.at})`);
    } else {
      console.log(`WARNING: no checkpoints in ${files.join(", ")}: deleting the last entries is not detectable`);
    }
    if (result.headSeq > 0) {
      console.log("checkpoint of the head (keep a copy where the database's administrators cannot write; pass it back with --checkpoints FILE):");
      console.log(JSON.stringify(makeAuditCheckpoint({ seq: result.headSeq, hash: result.headHash }, keyInfo.key, db.url)));
    }
    return 0;
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

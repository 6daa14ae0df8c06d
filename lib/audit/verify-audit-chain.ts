import type { PrismaClient } from "../db/generated/client";
import { GENESIS_HASH, auditEntryHash } from "./hash";

export type TAuditBreak = { seq: number; problem: "missing" | "prev_hash_mismatch" | "hash_mismatch"; detail: string };
export type TAuditVerification = { ok: true; entries: number; headHash: string } | { ok: false; entries: number; firstBreak: TAuditBreak };

const PAGE = 1000;

/**
 * Walks the chain in seq order and reports the first broken link: a gap in seq (a deleted
 * row), a prev_hash that is not the previous row's hash (deleted or reordered rows) or a hash
 * that does not match the row's contents (a modified row). Removing rows from the end is not
 * detectable from the table alone; compare headHash with a copy kept elsewhere for that.
 */
export async function verifyAuditChain(prisma: Pick<PrismaClient, "auditEntry">): Promise<TAuditVerification> {
  let prevHash = GENESIS_HASH;
  let expectedSeq = 1;
  let entries = 0;
  for (;;) {
    const rows = await prisma.auditEntry.findMany({ where: { seq: { gte: expectedSeq } }, orderBy: { seq: "asc" }, take: PAGE });
    for (const row of rows) {
      if (row.seq !== expectedSeq) {
        return { ok: false, entries, firstBreak: { seq: expectedSeq, problem: "missing", detail: `entry ${expectedSeq} is missing (next is ${row.seq})` } };
      }
      if (row.prevHash !== prevHash) {
        return {
          ok: false,
          entries,
          firstBreak: { seq: row.seq, problem: "prev_hash_mismatch", detail: `entry ${row.seq} does not follow entry ${row.seq - 1}: prev_hash ${row.prevHash.slice(0, 12)}… expected ${prevHash.slice(0, 12)}…` },
        };
      }
      const recomputed = auditEntryHash(row);
      if (recomputed !== row.hash) {
        return { ok: false, entries, firstBreak: { seq: row.seq, problem: "hash_mismatch", detail: `entry ${row.seq} was modified after it was written (stored hash does not match its contents)` } };
      }
      prevHash = row.hash;
      expectedSeq += 1;
      entries += 1;
    }
    if (rows.length < PAGE) return { ok: true, entries, headHash: prevHash };
  }
}

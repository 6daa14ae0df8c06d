import { timingSafeEqual } from "node:crypto";
import type { PrismaClient } from "../db/generated/client";
import { auditCheckpointMac, auditEntryMac, resolveAuditKey } from "./audit-key";
import type { TAuditCheckpoint } from "./checkpoints";
import { GENESIS_HASH, auditEntryHash } from "./hash";

export type TAuditProblem =
  "missing" | "prev_hash_mismatch" | "hash_mismatch" | "mac_mismatch" | "mac_missing" | "checkpoint_mismatch" | "checkpoint_invalid" | "truncated";
export type TAuditBreak = { seq: number; problem: TAuditProblem; detail: string };
export type TAuditVerification =
  | {
      ok: true;
      /** Entries verified (from `from.seq + 1` when `from` is given). */
      entries: number;
      headSeq: number;
      headHash: string;
      /** "verified": every MAC present was checked with the key; "unchecked": no key. */
      macs: "verified" | "unchecked";
      /** With a key: the leading entries that carry no MAC (written before a key was configured). */
      unauthenticated: { from: number; to: number } | null;
      /** Checkpoints the chain was compared with. */
      checkpoints: number;
    }
  | { ok: false; entries: number; firstBreak: TAuditBreak };

export type TAuditVerifyOptions = {
  /** The audit key; default: from the environment (resolveAuditKey). null: MACs unchecked. */
  key?: Buffer | null;
  /** Checkpoints kept outside the database (readAuditCheckpoints); every one must hold. */
  checkpoints?: readonly TAuditCheckpoint[];
  /** Start at an entry already verified (the last checkpoint) instead of entry 1. */
  from?: { seq: number; hash: string };
};

const PAGE = 1000;

function sameHex(a: string, b: string): boolean {
  return a.length === b.length && timingSafeEqual(Buffer.from(a), Buffer.from(b));
}

const short = (h: string) => `${h.slice(0, 12)}…`;

/**
 * Walks the chain in seq order and reports the first broken link: a gap in seq (a deleted
 * row), a prev_hash that is not the previous row's hash (deleted or reordered rows), a hash
 * that does not match the row's contents (a modified row), a MAC that does not match the hash
 * under the audit key or is missing after MACed entries (a chain rewritten and recomputed by
 * someone without the key), an entry whose hash differs from a checkpoint (a recomputed
 * chain), or a log that ends before a checkpoint's seq (the tail was deleted). Without a key
 * and without checkpoints only the first three can be detected: see lib/audit/README.md.
 */
const broken = (entries: number, seq: number, problem: TAuditProblem, detail: string): TAuditVerification => ({
  ok: false,
  entries,
  firstBreak: { seq, problem, detail },
});

export async function verifyAuditChain(prisma: Pick<PrismaClient, "auditEntry">, opts: TAuditVerifyOptions = {}): Promise<TAuditVerification> {
  const key = opts.key === undefined ? resolveAuditKey().key : opts.key;
  const from = opts.from ?? null;
  const checkpoints = (opts.checkpoints ?? []).filter((c) => !from || c.seq > from.seq);

  if (key) {
    for (const c of [...checkpoints].sort((a, b) => a.seq - b.seq)) {
      if (c.mac !== null && !sameHex(c.mac, auditCheckpointMac(key, c))) {
        return broken(
          0,
          c.seq,
          "checkpoint_invalid",
          `the checkpoint of ${c.at} for entry ${c.seq} has no valid MAC under the audit key: the checkpoint file was edited, or the key is not the one it was written with`,
        );
      }
    }
  }
  const bySeq = new Map<number, TAuditCheckpoint[]>();
  for (const c of checkpoints) bySeq.set(c.seq, [...(bySeq.get(c.seq) ?? []), c]);

  let prevHash = GENESIS_HASH;
  let expectedSeq = 1;
  let entries = 0;
  let firstMacSeq: number | null = null;
  let unauthFrom: number | null = null;
  let unauthTo = 0;

  if (from) {
    const row = await prisma.auditEntry.findUnique({ where: { seq: from.seq }, select: { hash: true } });
    if (!row) return broken(0, from.seq, "truncated", `entry ${from.seq}, recorded by the last checkpoint, is gone: the log was truncated`);
    if (row.hash !== from.hash) {
      return broken(
        0,
        from.seq,
        "checkpoint_mismatch",
        `entry ${from.seq}'s hash ${short(row.hash)} differs from the last checkpoint (${short(from.hash)}): the log up to entry ${from.seq} was rewritten and its hashes recomputed`,
      );
    }
    prevHash = from.hash;
    expectedSeq = from.seq + 1;
  }

  for (;;) {
    const rows = await prisma.auditEntry.findMany({ where: { seq: { gte: expectedSeq } }, orderBy: { seq: "asc" }, take: PAGE });
    for (const row of rows) {
      if (row.seq !== expectedSeq) return broken(entries, expectedSeq, "missing", `entry ${expectedSeq} is missing (next is ${row.seq})`);
      if (row.prevHash !== prevHash) {
        return broken(
          entries,
          row.seq,
          "prev_hash_mismatch",
          `entry ${row.seq} does not follow entry ${row.seq - 1}: prev_hash ${short(row.prevHash)} expected ${short(prevHash)}`,
        );
      }
      if (auditEntryHash(row) !== row.hash) {
        return broken(entries, row.seq, "hash_mismatch", `entry ${row.seq} was modified after it was written (stored hash does not match its contents)`);
      }
      if (key) {
        if (row.mac === null) {
          if (firstMacSeq !== null) {
            return broken(
              entries,
              row.seq,
              "mac_missing",
              `entry ${row.seq} has no MAC although entry ${firstMacSeq} before it has one: the MACs were stripped from a rewritten chain`,
            );
          }
          unauthFrom ??= row.seq;
          unauthTo = row.seq;
        } else {
          if (!sameHex(row.mac, auditEntryMac(key, row.hash))) {
            return broken(
              entries,
              row.seq,
              "mac_mismatch",
              `entry ${row.seq}'s MAC does not match its hash under the audit key: the entry or the chain before it was rewritten by someone without the key (or the key is not the one it was written with)`,
            );
          }
          firstMacSeq ??= row.seq;
        }
      }
      for (const c of bySeq.get(row.seq) ?? []) {
        if (c.hash !== row.hash) {
          return broken(
            entries,
            row.seq,
            "checkpoint_mismatch",
            `entry ${row.seq}'s hash ${short(row.hash)} differs from the checkpoint of ${c.at} (${short(c.hash)}): the log up to entry ${row.seq} was rewritten and its hashes recomputed`,
          );
        }
      }
      prevHash = row.hash;
      expectedSeq += 1;
      entries += 1;
    }
    if (rows.length < PAGE) break;
  }

  const headSeq = expectedSeq - 1;
  const beyond = checkpoints.filter((c) => c.seq > headSeq).sort((a, b) => b.seq - a.seq)[0];
  if (beyond) {
    return broken(
      entries,
      headSeq + 1,
      "truncated",
      `the log ends at entry ${headSeq} but the checkpoint of ${beyond.at} recorded entry ${beyond.seq}: entries ${headSeq + 1}–${beyond.seq} were deleted`,
    );
  }
  return {
    ok: true,
    entries,
    headSeq,
    headHash: prevHash,
    macs: key ? "verified" : "unchecked",
    unauthenticated: unauthFrom === null ? null : { from: unauthFrom, to: unauthTo },
    checkpoints: checkpoints.length,
  };
}

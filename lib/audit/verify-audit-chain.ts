import { timingSafeEqual } from "node:crypto";
import type { PrismaClient } from "../db";
import { auditCheckpointMac, auditEntryMac, auditKeyId, resolveAuditKey } from "./audit-key";
import type { TAuditCheckpoint } from "./checkpoints";
import { GENESIS_HASH, auditEntryHash } from "./hash";

export type TAuditProblem =
  | "missing"
  | "prev_hash_mismatch"
  | "hash_mismatch"
  | "mac_mismatch"
  | "mac_missing"
  | "mac_retired_key"
  | "checkpoint_mismatch"
  | "checkpoint_invalid"
  | "truncated";
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
      /** The last entry MACed with a retired key (before the current key took over); null: none. */
      retiredUntil: number | null;
      /** Checkpoints the chain was compared with. */
      checkpoints: number;
    }
  | { ok: false; entries: number; firstBreak: TAuditBreak };

export type TAuditVerifyOptions = {
  /** The audit key; default: from the environment (resolveAuditKey). null: MACs unchecked. */
  key?: Buffer | null;
  /** Keys the log was MACed with before `key`, oldest first; default: the environment's when `key` is too, else none. */
  retired?: readonly Buffer[];
  /** How long after a newer key's first entry an older key may still MAC entries (instances restarting); default SWITCHYARD_AUDIT_ROTATION_GRACE_SECONDS or 600. */
  rotationGraceSeconds?: number;
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
  const resolved = opts.key === undefined ? resolveAuditKey() : null;
  const key = resolved ? resolved.key : (opts.key ?? null);
  const keys = key ? [...(opts.retired ?? resolved?.retired ?? []), key] : [];
  const macs = macChecker(keys, (opts.rotationGraceSeconds ?? rotationGraceFromEnv()) * 1000);
  const from = opts.from ?? null;
  const checkpoints = (opts.checkpoints ?? []).filter((c) => !from || c.seq > from.seq);

  if (key) {
    for (const c of [...checkpoints].sort((a, b) => a.seq - b.seq)) {
      if (c.mac !== null && !keys.some((k) => sameHex(c.mac!, auditCheckpointMac(k, c)))) {
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
      const macProblem = macs.check(row);
      if (macProblem) return broken(entries, row.seq, macProblem.problem, macProblem.detail);
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
    unauthenticated: macs.unauthenticated(),
    retiredUntil: macs.retiredUntil(),
    checkpoints: checkpoints.length,
  };
}

function rotationGraceFromEnv(): number {
  const raw = process.env.SWITCHYARD_AUDIT_ROTATION_GRACE_SECONDS;
  const n = raw === undefined || raw === "" ? 600 : Number(raw);
  return Number.isFinite(n) && n >= 0 ? n : 600;
}

/**
 * The MAC checks along the chain, with `keys` oldest first (the current one last). An entry's
 * MAC must match one of them; once an entry is MACed with a newer key, an older key's MAC is
 * accepted only within `graceMs` of that entry's time (other instances may still be restarting
 * onto the new key) and only while no newer-key entry past that window was seen, so whoever
 * holds a retired key cannot add to the log once the rotation's grace has passed.
 */
function macChecker(keys: readonly Buffer[], graceMs: number) {
  let firstMacSeq: number | null = null;
  let unauth: { from: number; to: number } | null = null;
  let newest = -1;
  let newestSince = { seq: 0, at: 0 };
  let newestLatest = 0;
  let retiredUntil: number | null = null;
  return {
    check(row: { seq: number; hash: string; mac: string | null; at: Date }): { problem: TAuditProblem; detail: string } | null {
      if (keys.length === 0) return null;
      if (row.mac === null) {
        if (firstMacSeq !== null)
          return {
            problem: "mac_missing",
            detail: `entry ${row.seq} has no MAC although entry ${firstMacSeq} before it has one: the MACs were stripped from a rewritten chain`,
          };
        unauth = { from: unauth?.from ?? row.seq, to: row.seq };
        return null;
      }
      let gen = keys.length - 1;
      while (gen >= 0 && !sameHex(row.mac, auditEntryMac(keys[gen]!, row.hash))) gen--;
      if (gen < 0)
        return {
          problem: "mac_mismatch",
          detail: `entry ${row.seq}'s MAC does not match its hash under the audit key${keys.length > 1 ? " or a retired one" : ""}: the entry or the chain before it was rewritten by someone without the key (or the key is not the one it was written with: after a rotation, list the old key in SWITCHYARD_AUDIT_RETIRED_KEYS)`,
        };
      firstMacSeq ??= row.seq;
      const at = row.at.getTime();
      if (gen > newest) {
        newest = gen;
        newestSince = { seq: row.seq, at };
        newestLatest = at;
      } else if (gen === newest) {
        newestLatest = Math.max(newestLatest, at);
      } else if (Math.max(at, newestLatest) > newestSince.at + graceMs) {
        // newestLatest comes from entries MACed with the newer key, which a retired key cannot forge.
        return {
          problem: "mac_retired_key",
          detail: `entry ${row.seq} is MACed with the retired key ${auditKeyId(keys[gen]!)} although entry ${newestSince.seq}, more than ${graceMs / 1000} s before it, is MACed with a newer key: written by someone holding a retired key`,
        };
      }
      if (gen < keys.length - 1) retiredUntil = row.seq;
      return null;
    },
    unauthenticated: () => unauth,
    retiredUntil: () => retiredUntil,
  };
}

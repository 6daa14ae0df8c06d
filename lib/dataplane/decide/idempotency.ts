import { hash } from "node:crypto";
import { createInsertionOrderedMap } from "../../runtime";
import type { TCandidateList, TExistingDecision } from "../decision-log/rows";
import { ContractError } from "../../edge";

/**
 * Per-instance memory of recent decide answers by (operation, requestId): a retry on the same
 * instance gets the same body without deciding again, and concurrent duplicates share one
 * decision (the second waits on the first's promise). Entries live for the idempotency window
 * and the cache is bounded in bytes; past the bound the oldest go first, and the decision
 * table's (operation, request_id) lookup in the group commit still answers those retries.
 */
/**
 * A cached answer in its stored form (decision-log/rows.ts TStoredRecord): the text with
 * `"candidates":null` and the candidate list it stands for, which router-core shares between the
 * decisions of one routing state. Keeping that, rather than a copy of each 3.5–4.5 KB body, keeps
 * about a tenth of the bytes per entry alive for the idempotency window (promoted by the young
 * generation's collections, then kept in the old), and the first answer is sent from the text
 * decide built, without a copy. `list` is null for an answer held whole (another instance's
 * decision, read back from the decision table). `request` is what the decision was made for: a
 * retry under the same requestId must ask the same (see sameRequest).
 */
export type TCachedAnswer = { decisionId: string; text: string; list: TCandidateList | null; request: TRequestIdentity };

/**
 * What makes two decide calls under one (operation, requestId) the same request: the region and
 * the attributes (the requestId is the caller's idempotency key, as in the IETF Idempotency-Key
 * draft, and a reused key with another request is refused rather than answered with a decision
 * made for another region or compliance). `attributesDigest` is undefined for a decision logged
 * before it was recorded: only the region is compared then.
 */
export type TRequestIdentity = { region: string; attributesDigest?: string | null };

/**
 * SHA-256 of the attributes sorted by name, or null when there are none (an empty object is
 * none). Sent in the answer and logged with it, so a retry answered from the decision table,
 * maybe on another instance, is compared too.
 */
export function attributesDigest(attributes: Readonly<Record<string, string>> | undefined): string | null {
  if (attributes === undefined) return null;
  const names = Object.keys(attributes);
  if (names.length === 0) return null;
  names.sort();
  return hash("sha256", JSON.stringify(names.map((n) => [n, attributes[n]])), "base64url");
}

/** Another instance's (or an evicted) decision, read back from the decision table; what it was made for is in its text. */
export function existingAnswer(e: TExistingDecision): TCachedAnswer {
  const r = JSON.parse(e.body) as { region: string; attributesDigest?: string | null };
  return { decisionId: e.id, text: e.body, list: null, request: { region: r.region, attributesDigest: r.attributesDigest } };
}

/** Throws 422 idempotency_key_reused unless `request` is the one the answer was made for. */
export function assertSameRequest(answer: TCachedAnswer, request: TRequestIdentity, requestId: string): void {
  const made = answer.request;
  if (made.region === request.region && (made.attributesDigest === undefined || made.attributesDigest === request.attributesDigest)) return;
  const what = made.region !== request.region ? `region ${JSON.stringify(made.region)}` : "other attributes";
  throw new ContractError(
    "idempotency_key_reused",
    `requestId ${JSON.stringify(requestId)} was used within the idempotency window for a different request (${what}); send a new requestId for a new request`,
    "requestId",
  );
}

const NULL_LIST = '"candidates":null';

/** The answer's body: its text with the candidate list put back where `"candidates":null` stands. */
export function answerText(answer: TCachedAnswer): string {
  if (answer.list === null) return answer.text;
  // The first occurrence: the keys before candidates cannot contain it (see decision_record_text()).
  const at = answer.text.indexOf(NULL_LIST) + NULL_LIST.length - 4;
  return answer.text.slice(0, at) + answer.list.json + answer.text.slice(at + 4);
}

/**
 * `answer` once the decision is durable (or known to be another's); until then `pending` makes the
 * promise a concurrent duplicate waits on, built only when one arrives (most decisions have none).
 */
type TEntry = {
  key: string;
  expiresAt: number;
  bytes: number;
  answer: TCachedAnswer | null;
  pending: Promise<TCachedAnswer> | (() => Promise<TCachedAnswer>) | null;
};

/** An answer in progress, as begin() registered it: settle() or drop() it once the write is done. */
export type TIdempotencySlot = { readonly key: string };

/**
 * What an entry costs the heap besides its key's and its text's characters: the entry, its
 * promise and answer objects, the decision id, the map's and the order queue's slots and string
 * headers. Measured with node 20: 100,000 entries shaped like decide's (450-character texts)
 * took 1,005 bytes of heap each, against 530 counted with 64 here before, so the bound let the
 * cache grow to about twice its setting.
 */
const ENTRY_OVERHEAD_BYTES = 512;

export function createIdempotencyCache(opts: { ttlMs: number; maxBytes: number; now?: () => number }) {
  const now = opts.now ?? Date.now;
  // Insertion order is expiry order (one TTL for all), so eviction and expiry both take the oldest.
  const entries = createInsertionOrderedMap<TEntry>();
  let bytes = 0;
  // No entry expires before this (the oldest one's expiry when last looked at, or earlier): until
  // then and within the byte bound, a settled answer needs no look at the oldest entry.
  let nextExpiry = Infinity;

  function forget(key: string, e: TEntry): void {
    if (entries.delete(key, e)) bytes -= e.bytes;
  }

  function evict(): void {
    const t = now();
    let o = entries.oldest();
    for (; o && (o.value.expiresAt <= t || bytes > opts.maxBytes); o = entries.oldest()) forget(o.key, o.value);
    nextExpiry = o ? o.value.expiresAt : Infinity;
  }

  function begin(key: string, pending: TEntry["pending"]): TIdempotencySlot {
    const previous = entries.get(key);
    if (previous) forget(key, previous);
    const entry: TEntry = { key, expiresAt: now() + opts.ttlMs, bytes: key.length + ENTRY_OVERHEAD_BYTES, answer: null, pending };
    entries.set(key, entry);
    bytes += entry.bytes;
    if (entry.expiresAt < nextExpiry) nextExpiry = entry.expiresAt;
    return entry;
  }

  function settle(slot: TIdempotencySlot, answer: TCachedAnswer): void {
    const entry = slot as TEntry;
    if (entries.get(entry.key) !== entry) return;
    entry.answer = answer;
    entry.pending = null;
    entry.bytes += answer.text.length;
    bytes += answer.text.length;
    if (bytes > opts.maxBytes || now() >= nextExpiry) evict();
  }

  function drop(slot: TIdempotencySlot): void {
    forget(slot.key, slot as TEntry);
  }

  return {
    /** The answer for `key` within the window: as it was settled, or a promise of it while its write is in flight; null if none. */
    get(key: string): TCachedAnswer | Promise<TCachedAnswer> | null {
      const e = entries.get(key);
      if (!e) return null;
      if (e.expiresAt <= now()) {
        forget(key, e);
        return null;
      }
      if (e.answer !== null) return e.answer;
      if (typeof e.pending === "function") e.pending = e.pending();
      return e.pending;
    },

    /**
     * Registers an answer in progress; `pending` makes the promise a concurrent duplicate waits on
     * (called only when one arrives). The caller settles the slot with the answer, or drops it when
     * the write failed, so a retry decides again.
     */
    begin: (key: string, pending: () => Promise<TCachedAnswer>): TIdempotencySlot => begin(key, pending),
    settle,
    drop,

    /** Registers an answer in progress as a promise; a rejected answer is forgotten so a retry decides again. */
    set(key: string, answer: Promise<TCachedAnswer>): void {
      const slot = begin(key, answer);
      answer.then(
        (a) => settle(slot, a),
        () => drop(slot),
      );
    },

    stats(): { entries: number; bytes: number } {
      return { entries: entries.size, bytes };
    },
  };
}

export type IdempotencyCache = ReturnType<typeof createIdempotencyCache>;

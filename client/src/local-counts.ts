import { randomUUID } from "./uuid.js";

/** The dimensions Switchyard counts decisions by (its decision rollup), for one decision made in this process. */
export type TLocalCountKey = {
  /** The minute's start, epoch ms. */
  minute: number;
  operation: string;
  region: string;
  selected: string | null;
  reasonCode: string;
  policyVersion: string | null;
  shadow: "agree" | "disagree" | "none";
  stale: boolean;
  degraded: boolean;
  source: "local" | "fail_static";
  /** The shadow policy's pick, when one was evaluated and picked a provider. */
  shadowPick: string | null;
};

export type TLocalCount = TLocalCountKey & { count: number };

/** A cell while it waits; `live` until a report takes it. */
type TCell = TLocalCount & { live: boolean };

/** Cells looked up by comparing their fields before the keyed map: consecutive decisions mostly land in a few. */
const RECENT = 8;

const sameCell = (c: TCell, minute: number, k: Omit<TLocalCountKey, "minute">) =>
  c.minute === minute &&
  c.selected === k.selected &&
  c.reasonCode === k.reasonCode &&
  c.region === k.region &&
  c.operation === k.operation &&
  c.shadow === k.shadow &&
  c.stale === k.stale &&
  c.degraded === k.degraded &&
  c.policyVersion === k.policyVersion &&
  c.source === k.source &&
  c.shadowPick === k.shadowPick;

/** POST /api/v1/decisions/counts: idempotent per (clientInstance, minute, batchId), so a resent report is not counted twice. */
export type TLocalCountReport = { clientInstance: string; batchId: string; counts: TLocalCount[] };

/** Cells per report at most (the data plane's bound). */
export const MAX_COUNT_ITEMS = 5_000;

const MINUTE_MS = 60_000;

/**
 * Exact per-minute counts of the decisions this process made itself, kept as cells by dimension
 * until they are reported. One report is out at a time and is sent again unchanged (same batch
 * id) until Switchyard acknowledges or refuses it. Bounded: past `maxCells` cells waiting, a
 * decision of a new cell is dropped and counted as dropped.
 */
export class LocalDecisionCounts {
  readonly clientInstance = randomUUID();
  private cells = new Map<string, TCell>();
  private recent: TCell[] = [];
  private out: { report: TLocalCountReport; decisions: number } | null = null;
  private made = 0;
  private reported = 0;
  private refused = 0;
  private dropped = 0;

  constructor(private readonly maxCells: number) {}

  /** Counts one decision made at `at`. */
  add(at: number, k: Omit<TLocalCountKey, "minute">): void {
    const minute = at - (at % MINUTE_MS);
    // The common case without building a key: a cell one of the last decisions counted in.
    for (const c of this.recent) {
      if (c.live && sameCell(c, minute, k)) {
        c.count++;
        this.made++;
        return;
      }
    }
    const key = `${minute}\u001f${k.operation}\u001f${k.region}\u001f${k.selected ?? ""}\u001f${k.reasonCode}\u001f${k.policyVersion ?? ""}\u001f${k.shadow}\u001f${k.stale ? 1 : 0}${k.degraded ? 1 : 0}\u001f${k.source}\u001f${k.shadowPick ?? ""}`;
    this.made++;
    let cell = this.cells.get(key);
    if (cell) cell.count++;
    else if (this.cells.size >= this.maxCells) {
      this.dropped++;
      return;
    } else this.cells.set(key, (cell = { minute, ...k, count: 1, live: true }));
    this.recent.push(cell);
    if (this.recent.length > RECENT) this.recent.shift();
  }

  /** The report to send now: the one still out, else a new one from the waiting cells; null when nothing waits. */
  next(): TLocalCountReport | null {
    if (this.out) return this.out.report;
    if (this.cells.size === 0) return null;
    const counts: TLocalCount[] = [];
    let decisions = 0;
    for (const [key, cell] of this.cells) {
      if (counts.length >= MAX_COUNT_ITEMS) break;
      const { live: _, ...count } = cell;
      cell.live = false;
      counts.push(count);
      decisions += cell.count;
      this.cells.delete(key);
    }
    this.out = { report: { clientInstance: this.clientInstance, batchId: randomUUID(), counts }, decisions };
    return this.out.report;
  }

  /** The report out was acknowledged (counted now or before) or refused for good. */
  settle(accepted: boolean): void {
    if (!this.out) return;
    if (accepted) this.reported += this.out.decisions;
    else this.refused += this.out.decisions;
    this.out = null;
  }

  get pending(): number {
    let n = this.out?.decisions ?? 0;
    for (const c of this.cells.values()) n += c.count;
    return n;
  }

  /** `made = reported + refused + dropped + pending` at all times. */
  stats(): { made: number; reported: number; refused: number; dropped: number; pending: number } {
    return { made: this.made, reported: this.reported, refused: this.refused, dropped: this.dropped, pending: this.pending };
  }
}

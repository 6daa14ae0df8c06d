import { mkdirSync, readdirSync, statSync } from "node:fs";
import { open, readFile, unlink, type FileHandle } from "node:fs/promises";
import path from "node:path";

/**
 * A local append-only spool for records that must reach Postgres but cannot right now
 * (DESIGN: no synchronous analytics dependency in the request path). Records are JSON lines in
 * numbered segment files under `dir`; append() returns only after the lines are fsynced, so a
 * caller may acknowledge what it spooled. replay() hands the closed segments back in order and
 * deletes each one only after its writer succeeded, so a crash mid-replay replays it again:
 * writers must be idempotent (ON CONFLICT DO NOTHING). Used for decisions and outcomes alike,
 * each with its own `name` (file prefix) and budget.
 */

export class SpoolFullError extends Error {
  constructor(
    readonly spoolName: string,
    readonly usedBytes: number,
    readonly maxBytes: number,
  ) {
    super(`spool ${spoolName} is full: ${usedBytes} of ${maxBytes} bytes used`);
  }
}

export type TSpoolOptions = {
  dir: string;
  /** File prefix; several spools can share a directory. */
  name: string;
  /** Disk budget over all segments; append beyond it throws SpoolFullError. */
  maxBytes: number;
  /** A segment is closed and a new one started past this size, bounding what replay reads at once. */
  segmentBytes?: number;
};

export type TSpoolStats = { usedBytes: number; maxBytes: number; segments: number; replaying: boolean };

export type Spool<T> = {
  append(items: readonly T[]): Promise<void>;
  /** Writes every spooled record through `write` in batches; returns how many were replayed. */
  replay(write: (items: T[]) => Promise<void>, batchSize?: number): Promise<number>;
  hasPending(): boolean;
  stats(): TSpoolStats;
  close(): Promise<void>;
};

const SEGMENT_RE = /^(.+)-(\d{12})\.jsonl$/;

export function createSpool<T>(opts: TSpoolOptions): Spool<T> {
  const segmentBytes = opts.segmentBytes ?? 16 * 1024 * 1024;
  mkdirSync(opts.dir, { recursive: true });

  // Segments left by an earlier process are pending replay; new appends go to a fresh segment.
  const closed: Array<{ file: string; bytes: number }> = [];
  let nextSeq = 1;
  for (const f of readdirSync(opts.dir).sort()) {
    const m = SEGMENT_RE.exec(f);
    if (!m || m[1] !== opts.name) continue;
    closed.push({ file: path.join(opts.dir, f), bytes: statSync(path.join(opts.dir, f)).size });
    nextSeq = Math.max(nextSeq, Number(m[2]) + 1);
  }
  let usedBytes = closed.reduce((s, c) => s + c.bytes, 0);
  let active: { file: string; handle: FileHandle; bytes: number } | null = null;
  let replaying = false;
  // Appends and segment rotation run one at a time so lines never interleave and rotation never
  // closes a handle under a write.
  let chain: Promise<unknown> = Promise.resolve();
  const serial = <R>(fn: () => Promise<R>): Promise<R> => {
    const run = chain.then(fn, fn);
    chain = run.catch(() => {});
    return run;
  };

  async function rotate(): Promise<void> {
    if (!active) return;
    await active.handle.close();
    closed.push({ file: active.file, bytes: active.bytes });
    active = null;
  }

  return {
    append(items) {
      if (items.length === 0) return Promise.resolve();
      let text = "";
      for (const item of items) text += `${JSON.stringify(item)}\n`;
      const data = Buffer.from(text, "utf8");
      return serial(async () => {
        if (usedBytes + data.length > opts.maxBytes) throw new SpoolFullError(opts.name, usedBytes, opts.maxBytes);
        if (active && active.bytes >= segmentBytes) await rotate();
        if (!active) {
          const file = path.join(opts.dir, `${opts.name}-${String(nextSeq++).padStart(12, "0")}.jsonl`);
          active = { file, handle: await open(file, "a"), bytes: 0 };
        }
        const a = active;
        await a.handle.write(data);
        await a.handle.sync();
        a.bytes += data.length;
        usedBytes += data.length;
      });
    },

    async replay(write, batchSize = 1000) {
      if (replaying) return 0;
      replaying = true;
      let count = 0;
      try {
        await serial(rotate);
        while (closed.length > 0) {
          const seg = closed[0]!;
          const lines = (await readFile(seg.file, "utf8")).split("\n");
          let batch: T[] = [];
          for (let i = 0; i < lines.length; i++) {
            const line = lines[i]!;
            if (line === "") continue;
            try {
              batch.push(JSON.parse(line) as T);
            } catch (err) {
              // Only a torn final line (a crash mid-append, never acknowledged) may be skipped.
              if (i === lines.length - 1) break;
              throw new Error(`spool ${seg.file} line ${i + 1} is corrupt: ${(err as Error).message}`);
            }
            if (batch.length >= batchSize) {
              await write(batch);
              count += batch.length;
              batch = [];
            }
          }
          if (batch.length > 0) {
            await write(batch);
            count += batch.length;
          }
          await unlink(seg.file);
          closed.shift();
          usedBytes -= seg.bytes;
        }
        return count;
      } finally {
        replaying = false;
      }
    },

    hasPending() {
      return closed.length > 0 || (active !== null && active.bytes > 0);
    },

    stats() {
      return { usedBytes, maxBytes: opts.maxBytes, segments: closed.length + (active ? 1 : 0), replaying };
    },

    close() {
      return serial(rotate);
    },
  };
}

import { randomBytes } from "node:crypto";
import { mkdirSync, readdirSync, statSync } from "node:fs";
import { open, readFile, unlink, type FileHandle } from "node:fs/promises";
import path from "node:path";

/**
 * A local append-only spool for records that must reach Postgres but cannot right now
 * (the request path has no synchronous dependency on analytics storage). Records are JSON lines in
 * numbered segment files under `dir`; append() returns only after the lines are fsynced, so a
 * caller may acknowledge what it spooled. replay() hands the closed segments back in order and
 * deletes each one only after its writer succeeded, so a crash mid-replay replays it again:
 * writers must be idempotent (ON CONFLICT DO NOTHING). Used for decisions and outcomes alike,
 * each with its own `name` (file prefix) and budget.
 *
 * Several instances may share a directory (processes on one host, or data planes in one test
 * process): segment names carry the writer's pid and a per-spool token, and a spool replays only
 * its own segments and orphans, i.e. those of a process that is gone or of a closed spool in this
 * process. Two spools adopting the same orphan both replay it, which idempotent writers absorb.
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

const SEGMENT_RE = /^(.+)-(\d+)-([0-9a-f]{8})-(\d{12})\.jsonl$/;

/** Tokens of the spools open in this process; a segment of this pid with another token is an orphan. */
const openTokens = new Set<string>();

function processAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (err) {
    return (err as NodeJS.ErrnoException).code === "EPERM";
  }
}

const isMissing = (err: unknown) => (err as NodeJS.ErrnoException).code === "ENOENT";

/** Segments of spool `name` in `dir` whose writer is gone (another process, or a closed spool in this one), not yet `known`. */
function findOrphans(dir: string, name: string, token: string, known: ReadonlySet<string>): Array<{ file: string; bytes: number }> {
  const found: Array<{ file: string; bytes: number }> = [];
  for (const f of readdirSync(dir).sort()) {
    const m = SEGMENT_RE.exec(f);
    if (!m || m[1] !== name || m[3] === token) continue;
    const pid = Number(m[2]);
    const orphan = pid === process.pid ? !openTokens.has(m[3]!) : !processAlive(pid);
    const file = path.join(dir, f);
    if (!orphan || known.has(file)) continue;
    try {
      found.push({ file, bytes: statSync(file).size });
    } catch (err) {
      if (!isMissing(err)) throw err;
    }
  }
  return found;
}

/**
 * Hands one segment's records to `write` in batches; returns how many, or null when the segment
 * is gone (another spool adopted and replayed this orphan first).
 */
async function replaySegment<T>(file: string, write: (items: T[]) => Promise<void>, batchSize: number): Promise<number | null> {
  let text: string;
  try {
    text = await readFile(file, "utf8");
  } catch (err) {
    if (!isMissing(err)) throw err;
    return null;
  }
  let count = 0;
  const lines = text.split("\n");
  let batch: T[] = [];
  for (let i = 0; i < lines.length; i++) {
    const line = lines[i]!;
    if (line === "") continue;
    try {
      batch.push(JSON.parse(line) as T);
    } catch (err) {
      // Only a torn final line (a crash mid-append, never acknowledged) may be skipped.
      if (i === lines.length - 1) break;
      throw new Error(`spool ${file} line ${i + 1} is corrupt: ${(err as Error).message}`);
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
  return count;
}

/** Runs async steps one at a time, in call order; a failed step does not stop the next. */
function createSerial(): <R>(fn: () => Promise<R>) => Promise<R> {
  let chain: Promise<unknown> = Promise.resolve();
  return <R>(fn: () => Promise<R>): Promise<R> => {
    const run = chain.then(fn, fn);
    chain = run.catch(() => {});
    return run;
  };
}

export function createSpool<T>(opts: TSpoolOptions): Spool<T> {
  const segmentBytes = opts.segmentBytes ?? 16 * 1024 * 1024;
  mkdirSync(opts.dir, { recursive: true });

  const token = randomBytes(4).toString("hex");
  openTokens.add(token);
  const closed: Array<{ file: string; bytes: number }> = [];
  let nextSeq = 1;
  let usedBytes = 0;

  /** Takes over segments whose writer is gone, so they are replayed and count against the budget. */
  function adoptOrphans(): void {
    for (const seg of findOrphans(opts.dir, opts.name, token, new Set(closed.map((c) => c.file)))) {
      closed.push(seg);
      usedBytes += seg.bytes;
    }
  }
  adoptOrphans();
  let active: { file: string; handle: FileHandle; bytes: number } | null = null;
  let replaying = false;
  // Appends and segment rotation run one at a time so lines never interleave and rotation never
  // closes a handle under a write.
  const serial = createSerial();

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
          const file = path.join(opts.dir, `${opts.name}-${process.pid}-${token}-${String(nextSeq++).padStart(12, "0")}.jsonl`);
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
        adoptOrphans();
        while (closed.length > 0) {
          const seg = closed[0]!;
          const n = await replaySegment(seg.file, write, batchSize);
          if (n !== null) {
            count += n;
            await unlink(seg.file).catch((err: unknown) => {
              if (!isMissing(err)) throw err;
            });
          }
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

    async close() {
      await serial(rotate);
      openTokens.delete(token);
    },
  };
}

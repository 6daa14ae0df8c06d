import { constants } from "node:fs";
import { open, readdir, stat } from "node:fs/promises";
import path from "node:path";

/**
 * Writes back, once a second, the data files of the embedded cluster that changed since the last
 * pass (fdatasync on a read-only descriptor, in libuv's thread pool), so the kernel never holds
 * much of them dirty.
 *
 * Why: Postgres extends a relation one page at a time by writing zeros (the heap, and every btree
 * split), and those pages stay dirty in the page cache until the kernel's expiry (30 s by
 * default) writes the whole file's dirty pages at once; its `*_flush_after` settings only cover
 * pages it writes back later. Under the decision log's load that was 250–315 MB every ~31 s,
 * written in about 200 ms with the WAL flush waiting behind it: a 60–130 ms stall of every decide
 * in flight (lib/dataplane/README.md, "Writeback stalls"). A host can avoid it with a low
 * `vm.dirty_background_bytes`; the embedded cluster cannot change the host's settings, but the
 * process that owns it can write its files back in small steps.
 */
export type TWritebackPacer = {
  /** One pass now (the timer's work; exposed for tests). Resolves with the files written back. */
  pass(): Promise<string[]>;
  stop(): Promise<void>;
};

export function startWritebackPacer(opts: {
  dataDir: string;
  intervalMs?: number;
  /** Writes one file back; fdatasync by default. */
  writeBack?: (file: string) => Promise<void>;
  log?: (line: string) => void;
}): TWritebackPacer {
  const intervalMs = opts.intervalMs ?? 1000;
  const writeBack = opts.writeBack ?? fdatasyncFile;
  const base = path.join(opts.dataDir, "base");
  // Modification time per file at its last write-back (files not seen yet: written back when they change).
  const seen = new Map<string, number>();
  let running: Promise<string[]> | null = null;
  let stopped = false;
  let warned = false;

  async function pass(): Promise<string[]> {
    const written: string[] = [];
    const present = new Set<string>();
    for (const db of await readdir(base).catch(() => [] as string[])) {
      const dir = path.join(base, db);
      for (const name of await readdir(dir).catch(() => [] as string[])) {
        // Relation files only (no temp files, no pg_internal.init).
        if (!/^\d+(_(fsm|vm|init))?(\.\d+)?$/.test(name)) continue;
        const file = path.join(dir, name);
        const mtime = await stat(file).then(
          (s) => s.mtimeMs,
          () => null,
        );
        if (mtime === null) continue;
        present.add(file);
        const before = seen.get(file);
        seen.set(file, mtime);
        if (before === undefined || before === mtime) continue;
        try {
          await writeBack(file);
          written.push(file);
        } catch (err) {
          // Dropped meanwhile (ENOENT) is normal; anything else is worth one line, once.
          if ((err as NodeJS.ErrnoException).code !== "ENOENT" && !warned) {
            warned = true;
            opts.log?.(`writeback pacer: ${(err as Error).message}`);
          }
        }
      }
    }
    for (const file of seen.keys()) if (!present.has(file)) seen.delete(file);
    return written;
  }

  const tick = () => {
    if (stopped || running) return;
    running = pass().finally(() => (running = null));
  };
  const timer = setInterval(tick, intervalMs);
  timer.unref();
  tick();

  return {
    pass: () => running ?? pass(),
    async stop() {
      stopped = true;
      clearInterval(timer);
      await running;
    },
  };
}

async function fdatasyncFile(file: string): Promise<void> {
  const handle = await open(file, constants.O_RDONLY);
  try {
    await handle.datasync();
  } finally {
    await handle.close();
  }
}

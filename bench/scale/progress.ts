/**
 * A one-line progress bar on stderr (redrawn in place on a terminal; a line per 5% otherwise, so
 * CI logs and files stay readable).
 */
export function createProgressBar(opts: { total: number; label: string; stream?: NodeJS.WriteStream }) {
  const stream = opts.stream ?? process.stderr;
  const tty = stream.isTTY === true;
  let lastPrinted = -1;
  const fmt = (n: number) => Math.round(n).toLocaleString("en-US");
  const duration = (ms: number) => {
    const s = Math.max(0, Math.round(ms / 1000));
    return s >= 3600
      ? `${Math.floor(s / 3600)}h${String(Math.floor((s % 3600) / 60)).padStart(2, "0")}m`
      : `${Math.floor(s / 60)}m${String(s % 60).padStart(2, "0")}s`;
  };
  return {
    update(done: number, elapsedMs: number, extra = ""): void {
      const fraction = opts.total > 0 ? Math.min(1, done / opts.total) : 1;
      const rate = elapsedMs > 0 ? (done / elapsedMs) * 1000 : 0;
      const eta = rate > 0 ? ((opts.total - done) / rate) * 1000 : 0;
      const width = 30;
      const filled = Math.round(fraction * width);
      const line = `${opts.label} [${"#".repeat(filled)}${".".repeat(width - filled)}] ${(fraction * 100).toFixed(1).padStart(5)}% ${fmt(done)}/${fmt(opts.total)} ${fmt(rate)}/s ETA ${duration(eta)}${extra ? ` ${extra}` : ""}`;
      if (tty) stream.write(`\r${line}\u001b[K`);
      else {
        const step = Math.floor(fraction * 20);
        if (step === lastPrinted) return;
        lastPrinted = step;
        stream.write(`${line}\n`);
      }
    },
    done(): void {
      if (tty) stream.write("\n");
    },
  };
}

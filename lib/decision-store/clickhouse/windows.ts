/** The first time window a newest-first read takes; each further window reaches this many times further back. */
const FIRST_WINDOW_MS = 3_600_000;
const WINDOW_GROWTH = 4;

/**
 * Rows of [from, top], newest first, read in windows from `top` (1 h, then 4× further back each
 * time) until `want` are found or the range is covered. The table's key orders time within an
 * operation and region, so one query over a range sorts every row in it; a busy week's page then
 * reads its last hour. `read(start, below, remaining)` returns at most `remaining` rows at or after
 * `start` and, from the second window on, before `below` (where the previous window began).
 */
export async function readNewestFirst<T>(
  from: number,
  top: number,
  want: number,
  read: (start: number, below: number | undefined, remaining: number) => Promise<T[]>,
): Promise<T[]> {
  const out: T[] = [];
  let below: number | undefined;
  for (let span = FIRST_WINDOW_MS; ; span *= WINDOW_GROWTH) {
    const start = Math.max(from, top - span);
    out.push(...(await read(start, below, want - out.length)));
    if (out.length >= want || start <= from) return out;
    below = start;
  }
}

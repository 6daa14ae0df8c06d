/** Decision-log link for the minutes around a moment (±2 min): the decisions made under that state. */
export function decisionsAround(operation: string, region: string, at: number): string {
  const q = new URLSearchParams({ operation, region, from: new Date(at - 120_000).toISOString(), to: new Date(at + 120_000).toISOString() });
  return `/decisions?${q}`;
}

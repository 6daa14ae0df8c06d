/** One metric family in the Prometheus text format: its HELP and TYPE header, then its series lines. */
export function familyLines(name: string, type: "counter" | "gauge" | "histogram" | "summary", help: string, series: readonly string[]): string[] {
  return [`# HELP ${name} ${help}`, `# TYPE ${name} ${type}`, ...series];
}

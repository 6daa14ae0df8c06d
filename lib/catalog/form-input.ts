/**
 * Console forms post FormData; these turn it into the plain objects the zod schemas check, so a
 * form and the API refuse the same input with the same field paths. Blank optional fields are
 * left out (the schema's default applies); a number field that does not parse is passed through
 * as text so the schema names the field.
 */
const text = (form: FormData, name: string) => String(form.get(name) ?? "").trim();
const list = (form: FormData, name: string) =>
  text(form, name)
    .split(/[\s,]+/)
    .filter(Boolean);
const num = (form: FormData, name: string): number | string | undefined => {
  const v = text(form, name);
  if (v === "") return undefined;
  const n = Number(v);
  return Number.isFinite(n) ? n : v;
};
const nullableNum = (form: FormData, name: string) => num(form, name) ?? null;

function json(form: FormData, name: string): unknown {
  const v = text(form, name);
  if (v === "") return undefined;
  try {
    return JSON.parse(v) as unknown;
  } catch {
    return v;
  }
}

/**
 * The quota rows of the provider form (quotaUnit, quotaLimit, quotaWindowSeconds, quotaReset, one
 * of each per row; a row with no limit is dropped), as the list ZQuota checks: quotas.0.limit names
 * the row's field. The fieldset always posts quotaFields, so a form whose last row was removed means
 * "no quotas", not "unchanged". Without either (an older form) the JSON field "quotas" is read.
 */
function quotaRows(form: FormData): unknown {
  if (!form.has("quotaUnit") && !form.has("quotaFields")) return json(form, "quotas");
  const column = (name: string) => form.getAll(name).map((v) => String(v).trim());
  const [units, limits, windows, resets] = [column("quotaUnit"), column("quotaLimit"), column("quotaWindowSeconds"), column("quotaReset")];
  const asNumber = (v: string | undefined) => (v === undefined || v === "" ? undefined : Number.isFinite(Number(v)) ? Number(v) : v);
  return units
    .map((unit, i) => ({ unit, limit: asNumber(limits[i]), windowSeconds: asNumber(windows[i]), reset: resets[i] || undefined }))
    .filter((q) => q.limit !== undefined)
    .map((q) => defined(q));
}

/** "EU: gdpr, soc2; NA: tcpa" → {EU: ["gdpr", "soc2"], NA: ["tcpa"]}. */
export function parseRequirements(s: string): Record<string, string[]> {
  const out: Record<string, string[]> = {};
  for (const part of s
    .split(/[;\n]+/)
    .map((p) => p.trim())
    .filter(Boolean)) {
    const [region, certs = ""] = part.split(":");
    out[region!.trim()] = certs.split(/[\s,]+/).filter(Boolean);
  }
  return out;
}

export function formatRequirements(r: Record<string, string[]>): string {
  return Object.entries(r)
    .map(([region, certs]) => `${region}: ${certs.join(", ")}`)
    .join("; ");
}

const defined = (o: Record<string, unknown>) => Object.fromEntries(Object.entries(o).filter(([, v]) => v !== undefined));

export const catalogFormInput = {
  provider: (form: FormData) =>
    defined({
      key: text(form, "key"),
      displayName: text(form, "displayName"),
      regions: list(form, "regions"),
      certifications: list(form, "certifications"),
      costPerRequest: num(form, "costPerRequest"),
      costPerInputToken1k: nullableNum(form, "costPerInputToken1k"),
      costPerOutputToken1k: nullableNum(form, "costPerOutputToken1k"),
      quotas: quotaRows(form),
      credentialRef: text(form, "credentialRef") || null,
      enabled: form.get("enabled") !== null,
    }),
  operation: (form: FormData) =>
    defined({
      key: text(form, "key"),
      description: text(form, "description"),
      criticality: text(form, "criticality") || undefined,
      regionRequirements: parseRequirements(text(form, "regionRequirements")),
      enabled: form.get("enabled") !== null,
    }),
  region: (form: FormData) => ({ name: text(form, "name"), requires: list(form, "requires") }),
  adapter: (form: FormData) =>
    defined({
      kind: text(form, "kind"),
      baseUrl: text(form, "baseUrl"),
      model: text(form, "model") || null,
      contextWindow: nullableNum(form, "contextWindow"),
      timeoutMs: num(form, "timeoutMs"),
      options: json(form, "options"),
    }),
  limits: (form: FormData) =>
    defined({
      deadlineMs: num(form, "deadlineMs"),
      maxAttempts: num(form, "maxAttempts"),
      retryBudgetRatio: num(form, "retryBudgetRatio"),
      retryBudgetMinPerSecond: num(form, "retryBudgetMinPerSecond"),
      costCapPerMinute: nullableNum(form, "costCapPerMinute"),
      costCapPerDay: nullableNum(form, "costCapPerDay"),
      maxFallbackSeconds: nullableNum(form, "maxFallbackSeconds"),
      cacheTtlSeconds: nullableNum(form, "cacheTtlSeconds"),
      idempotencyWindowSeconds: num(form, "idempotencyWindowSeconds"),
    }),
};

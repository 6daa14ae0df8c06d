/**
 * A channel form's fields as the input the schema validates (the console's server actions use
 * it; the form names match ZChannelInput's paths so refusals land under the right field).
 */
export function channelFormInput(form: FormData): Record<string, unknown> {
  const text = (name: string) => String(form.get(name) ?? "").trim();
  const list = (name: string) =>
    text(name)
      .split(/[\s,]+/)
      .filter(Boolean);
  return {
    name: text("name"),
    kind: text("kind"),
    enabled: form.get("enabled") === "on",
    url: text("url") || null,
    secretRef: text("secretRef"),
    routes: {
      kinds: form.getAll("routes.kinds").map(String),
      operations: list("routes.operations"),
      regions: list("routes.regions"),
      severities: form.getAll("routes.severities").map(String),
    },
  };
}

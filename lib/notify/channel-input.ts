import { z } from "zod";
import type { TFieldError } from "../errors";
import { CREDENTIAL_REF_PATTERN, resolveCredential, credentialRefProblem, secretNamespaceFromEnv } from "../gateway";
import { CHANNEL_KINDS, PAGERDUTY_EVENTS_URL, pagerDutyAction } from "./messages";
import { channelUrlProblem, secretDestinationProblem } from "./outbound";
import { NO_ROUTES, ZChannelRoutes } from "./routes";

type TEnv = Readonly<Record<string, string | undefined>>;

/** A channel as an admin writes it (console form, config bundle). The secret is a reference, never a value. */
export const ZChannelInput = z.strictObject({
  name: z
    .string()
    .trim()
    .regex(/^[A-Za-z0-9][A-Za-z0-9_.-]{0,63}$/, "1-64 letters, digits, _ . - (starting with a letter or digit)"),
  kind: z.enum(CHANNEL_KINDS),
  enabled: z.boolean().default(true),
  /** webhook: where to POST; pagerduty: the Events API URL (default PagerDuty's); slack: none (the URL is the secret). */
  url: z.string().trim().max(2000).nullable().default(null),
  secretRef: z.string().trim().max(500).regex(CREDENTIAL_REF_PATTERN, "a reference: env:NAME or file:/path (never the secret itself)"),
  routes: ZChannelRoutes.default(NO_ROUTES),
});
export type TChannelInput = z.output<typeof ZChannelInput>;

function urlErrors(input: TChannelInput, env: TEnv): TFieldError[] {
  if (input.kind === "slack") {
    return input.url ? [{ path: "url", message: "a Slack channel takes its webhook URL from secretRef (the URL is the secret); leave url empty" }] : [];
  }
  if (!input.url) return input.kind === "webhook" ? [{ path: "url", message: "a webhook channel needs the receiver's URL" }] : [];
  const problem = channelUrlProblem(input.url, env) ?? secretDestinationProblem(input.kind, input.secretRef, input.url, env);
  return problem ? [{ path: "url", message: problem }] : [];
}

/** A Slack URL that resolves now is checked like any URL; the message names the reference, not the URL. */
function secretErrors(input: TChannelInput, env: TEnv): TFieldError[] {
  const problem = credentialRefProblem(input.secretRef, secretNamespaceFromEnv(env));
  if (problem) return [{ path: "secretRef", message: problem }];
  if (input.kind !== "slack") return [];
  const resolved = resolveCredential(input.secretRef, env);
  if (!resolved.ok || !resolved.value) return [];
  const urlProblem = channelUrlProblem(resolved.value, env) ?? secretDestinationProblem("slack", input.secretRef, resolved.value, env);
  return urlProblem ? [{ path: "secretRef", message: `the URL in ${input.secretRef}: ${urlProblem}` }] : [];
}

function routeErrors(input: TChannelInput): TFieldError[] {
  if (input.kind !== "pagerduty") return [];
  const unsent = input.routes.kinds.filter((k) => pagerDutyAction(k) === null);
  return unsent.length > 0
    ? [{ path: "routes.kinds", message: `PagerDuty takes incidents, kill switches and pins (trigger and resolve), not ${unsent.join(", ")}` }]
    : [];
}

/** Every semantic problem with a channel, as the 422's fields. */
export function channelInputErrors(input: TChannelInput, env: TEnv = process.env): TFieldError[] {
  return [...urlErrors(input, env), ...secretErrors(input, env), ...routeErrors(input)];
}

/** The row's columns for a valid input. */
export function channelData(input: TChannelInput) {
  return {
    name: input.name,
    kind: input.kind,
    enabled: input.enabled,
    url: input.kind === "slack" ? null : (input.url ?? (input.kind === "pagerduty" ? PAGERDUTY_EVENTS_URL : null)),
    secretRef: input.secretRef,
    routes: input.routes,
  };
}

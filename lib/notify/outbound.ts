import { isDemoMode, isLoopbackHost } from "../auth";
import {
  addressPolicy,
  addressPolicyFromEnv,
  addressRefusal,
  forbiddenHostName,
  credentialHostProblem,
  resolveCredential,
  createHttp1Client,
} from "../gateway";
import type { TChannelKind, TOutgoing } from "./messages";

/**
 * Channels send where provider adapters may: https, plain http only to loopback where a local
 * mock stands in (demo mode, tests, SWITCHYARD_ALLOW_LOOPBACK_PROVIDERS=1), and never to a
 * private, link-local or metadata address unless SWITCHYARD_ALLOW_PRIVATE_PROVIDER_NETWORKS
 * opens it: a notification URL is as much an SSRF tool as an adapter's. The same rule is
 * checked when a channel is saved (URL text) and on every resolved address when it sends.
 */
type TEnv = Readonly<Record<string, string | undefined>>;

const loopbackAllowed = (env: TEnv) => isDemoMode() || env.NODE_ENV === "test" || env.SWITCHYARD_ALLOW_LOOPBACK_PROVIDERS === "1";

export function channelUrlProblem(raw: string, env: TEnv = process.env): string | null {
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    return "must be an absolute URL (https://…)";
  }
  if (url.username || url.password) return "must not carry credentials";
  const host = url.hostname.replace(/^\[|\]$/g, "").toLowerCase();
  const allowLoopback = loopbackAllowed(env);
  if (url.protocol === "http:") {
    if (!isLoopbackHost(host)) return "must be https (plain http only to loopback in demo mode and tests)";
    return allowLoopback ? null : "must be https: plain http to loopback is allowed only in demo mode and tests (SWITCHYARD_ALLOW_LOOPBACK_PROVIDERS=1)";
  }
  if (url.protocol !== "https:") return `must be https, not ${url.protocol.replace(/:$/, "")}`;
  const forbidden = forbiddenHostName(host, addressPolicy({ allowLoopback, allowedNetworks: env.SWITCHYARD_ALLOW_PRIVATE_PROVIDER_NETWORKS ?? "" }));
  return forbidden ? addressRefusal(host, forbidden) : null;
}

/** The hosts a Slack URL or a PagerDuty routing key goes to without being declared in SWITCHYARD_CREDENTIAL_HOSTS. */
const SERVICE_HOSTS: Record<TChannelKind, readonly string[]> = {
  webhook: [],
  slack: ["hooks.slack.com"],
  pagerduty: ["events.pagerduty.com", "events.eu.pagerduty.com"],
};

/**
 * A channel secret that travels (the Slack URL, the PagerDuty routing key) goes only to its
 * service's hosts or to hosts declared for it, like a provider credential; a webhook's signing
 * secret never leaves the server.
 */
export function secretDestinationProblem(kind: TChannelKind, ref: string, url: string, env: TEnv = process.env): string | null {
  if (kind === "webhook") return null;
  let host: string;
  try {
    host = new URL(url).hostname.toLowerCase();
  } catch {
    return "the URL cannot be read";
  }
  if (SERVICE_HOSTS[kind].includes(host)) return null;
  return credentialHostProblem(ref, url, env);
}

export { resolveCredential };

export type TSendResult = { status: number | null; error: string | null; durationMs: number; retryAfterMs: number | null };

/** Answers are read only to report them; a receiver cannot make the dispatcher hold more than this. */
const MAX_ANSWER_BYTES = 64 * 1024;
export const MAX_REQUEST_BYTES = 64 * 1024;

function retryAfter(value: string | string[] | undefined, nowMs: number): number | null {
  const v = Array.isArray(value) ? value[0] : value;
  if (!v) return null;
  const seconds = Number(v);
  if (Number.isFinite(seconds) && seconds >= 0) return seconds * 1000;
  const at = Date.parse(v);
  return Number.isNaN(at) ? null : Math.max(0, at - nowMs);
}

export function createNotifySender(env: TEnv = process.env) {
  const client = createHttp1Client({ addressPolicy: () => addressPolicyFromEnv(env), maxBodyBytes: MAX_ANSWER_BYTES, maxConnectionsPerOrigin: 4 });
  return {
    /** One POST within `timeoutMs`: status and error as values, never a throw. */
    async send(out: TOutgoing, timeoutMs: number): Promise<TSendResult> {
      const started = performance.now();
      const took = () => Math.round(performance.now() - started);
      if (Buffer.byteLength(out.body) > MAX_REQUEST_BYTES)
        return { status: null, error: `message larger than ${MAX_REQUEST_BYTES} bytes`, durationMs: 0, retryAfterMs: null };
      try {
        const res = await client.request(
          { url: out.url, method: "POST", headers: out.headers, body: out.body },
          timeoutMs,
          () => new Error(`no answer within ${timeoutMs} ms`),
        );
        const ok = res.status >= 200 && res.status < 300;
        const error = ok ? null : `HTTP ${res.status}: ${res.body.toString("utf8", 0, 200)}`;
        return { status: res.status, error, durationMs: took(), retryAfterMs: retryAfter(res.headers["retry-after"], Date.now()) };
      } catch (err) {
        const e = err as { message?: string; code?: string };
        const message = e.message ?? String(err);
        const error = e.code && !message.includes(e.code) ? `${e.code}: ${message}` : message;
        return { status: null, error: error.slice(0, 500), durationMs: took(), retryAfterMs: null };
      }
    },
    close: () => client.close(),
  };
}
export type NotifySender = ReturnType<typeof createNotifySender>;

import { isDemoMode, isLoopbackHost } from "../auth";
import { addressPolicy, addressRefusal, forbiddenHostName } from "../gateway";

export type TOutboundSettings = {
  allowLoopbackHttp: boolean;
  allowedHosts: readonly string[] | null;
  /** SWITCHYARD_ALLOW_PRIVATE_PROVIDER_NETWORKS: CIDRs adapters may reach although private or link-local. */
  allowedNetworks?: string;
};

/**
 * Plain http reaches only loopback, and only where a local mock stands in for a provider: demo
 * mode, tests, or an operator's explicit SWITCHYARD_ALLOW_LOOPBACK_PROVIDERS=1 (the e2e run).
 * SWITCHYARD_PROVIDER_HOSTS (comma-separated; `*.example.com` matches subdomains) limits where
 * adapters may point at all. Private, link-local and metadata addresses are refused unless
 * SWITCHYARD_ALLOW_PRIVATE_PROVIDER_NETWORKS opens them (lib/gateway/address-policy.ts).
 */
export function outboundSettingsFromEnv(env: Readonly<Record<string, string | undefined>> = process.env): TOutboundSettings {
  const hosts = (env.SWITCHYARD_PROVIDER_HOSTS ?? "")
    .split(",")
    .map((h) => h.trim().toLowerCase())
    .filter(Boolean);
  return {
    allowLoopbackHttp: isDemoMode() || env.NODE_ENV === "test" || env.SWITCHYARD_ALLOW_LOOPBACK_PROVIDERS === "1",
    allowedHosts: hosts.length > 0 ? hosts : null,
    allowedNetworks: env.SWITCHYARD_ALLOW_PRIVATE_PROVIDER_NETWORKS ?? "",
  };
}

function hostAllowed(host: string, allowed: readonly string[]): boolean {
  return allowed.some((a) => (a.startsWith("*.") ? host.endsWith(a.slice(1)) && host.length > a.length - 1 : host === a));
}

/** Why an adapter may not call this base URL, or null when it may. */
export function baseUrlProblem(baseUrl: string, settings: TOutboundSettings = outboundSettingsFromEnv()): string | null {
  let url: URL;
  try {
    url = new URL(baseUrl);
  } catch {
    return "must be an absolute URL (https://…)";
  }
  const host = url.hostname.replace(/^\[|\]$/g, "").toLowerCase();
  if (url.username || url.password) return "must not carry credentials; use the provider's credentialRef";
  const loopback = isLoopbackHost(host);
  if (url.protocol === "http:") {
    if (!loopback) return "must be https (plain http only to loopback in demo mode and tests)";
    if (!settings.allowLoopbackHttp)
      return "must be https: plain http to loopback is allowed only in demo mode and tests (SWITCHYARD_ALLOW_LOOPBACK_PROVIDERS=1)";
    return null;
  }
  if (url.protocol !== "https:") return `must be https, not ${url.protocol.replace(/:$/, "")}`;
  // Literal IPs in any encoding (2130706433, 0x7f000001, [::ffff:127.0.0.1]) arrive here normalised
  // by the URL parser; names are checked again on their resolved addresses at call time.
  const forbidden = forbiddenHostName(host, addressPolicy({ allowLoopback: settings.allowLoopbackHttp, allowedNetworks: settings.allowedNetworks }));
  if (forbidden) return addressRefusal(host, forbidden);
  if (settings.allowedHosts && !hostAllowed(host, settings.allowedHosts)) {
    return `host ${host} is not in SWITCHYARD_PROVIDER_HOSTS (${settings.allowedHosts.join(", ")})`;
  }
  return null;
}

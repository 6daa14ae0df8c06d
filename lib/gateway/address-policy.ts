import net from "node:net";
import { isDemoMode } from "../auth";

/**
 * Where provider calls may connect. An adapter's base URL is written by an admin or a control
 * key, so without this an adapter is a tool for reaching the server's own network: loopback
 * services, the cloud metadata endpoint, private ranges, port scans (SSRF). Every address a call
 * connects to is checked (literal IPs before connecting, names in the socket's own DNS lookup,
 * guarded-lookup.ts), so a name that resolves elsewhere between a check and the connect cannot
 * slip through.
 */
export type TAddressPolicy = {
  /** Loopback (127.0.0.0/8, ::1): demo mode, tests, SWITCHYARD_ALLOW_LOOPBACK_PROVIDERS=1, where a local mock stands in for a provider. */
  allowLoopback: boolean;
  /** SWITCHYARD_ALLOW_PRIVATE_PROVIDER_NETWORKS: ranges an operator opened on purpose (a provider on the private network). */
  allowed: net.BlockList;
  allowedText: string;
};

type TRange = { label: string; list: net.BlockList };

function range(label: string, cidrs: string[]): TRange {
  const list = new net.BlockList();
  for (const cidr of cidrs) {
    const [addr, prefix] = cidr.split("/") as [string, string];
    const family = net.isIPv6(addr) ? "ipv6" : "ipv4";
    list.addSubnet(addr, Number(prefix), family);
    // NAT64 (64:ff9b::/96) embeds an IPv4 address: the same range reached through it. BlockList
    // itself maps IPv4-mapped IPv6 (::ffff:a.b.c.d) onto IPv4 ranges.
    if (family === "ipv4") list.addSubnet(`64:ff9b::${addr}`, 96 + Number(prefix), "ipv6");
  }
  return { label, list };
}

const LOOPBACK = range("loopback", ["127.0.0.0/8", "::1/128"]);

/** IANA special-purpose ranges a provider never lives in; the label says which in errors and logs. */
const FORBIDDEN: readonly TRange[] = [
  range("cloud metadata", ["169.254.169.254/32", "169.254.170.2/32", "100.100.100.200/32", "fd00:ec2::254/128"]),
  range("link-local", ["169.254.0.0/16", "fe80::/10"]),
  range("private (RFC 1918)", ["10.0.0.0/8", "172.16.0.0/12", "192.168.0.0/16"]),
  range("unique-local", ["fc00::/7", "fec0::/10"]),
  range("carrier-grade NAT", ["100.64.0.0/10"]),
  range("this network", ["0.0.0.0/8", "::/128"]),
  range("IPv4-compatible IPv6", ["::/96"]),
  range("reserved", ["192.0.0.0/24", "192.0.2.0/24", "198.18.0.0/15", "198.51.100.0/24", "203.0.113.0/24", "240.0.0.0/4", "100::/64", "2001:db8::/32"]),
  range("multicast", ["224.0.0.0/4", "ff00::/8"]),
];

/** Names that are the metadata service or loopback whatever DNS says (RFC 6761 for localhost). */
const FORBIDDEN_NAMES = /^(metadata|metadata\.google\.internal|metadata\.goog|instance-data|instance-data\.ec2\.internal)\.?$/;
const LOOPBACK_NAMES = /^(localhost|.+\.localhost)\.?$/;

/** Parses a comma-separated CIDR list; entries that do not parse are left out (the policy stays closed) and returned. */
export function parseCidrs(text: string): { list: net.BlockList; bad: string[] } {
  const list = new net.BlockList();
  const bad: string[] = [];
  for (const raw of text.split(",")) {
    const entry = raw.trim();
    if (!entry) continue;
    const [addr = "", prefixText] = entry.split("/");
    const family = net.isIP(addr);
    const max = family === 6 ? 128 : 32;
    const prefix = prefixText === undefined ? max : Number(prefixText);
    if (family === 0 || !Number.isInteger(prefix) || prefix < 0 || prefix > max || (prefixText !== undefined && !/^\d+$/.test(prefixText))) {
      bad.push(entry);
      continue;
    }
    list.addSubnet(addr, prefix, family === 6 ? "ipv6" : "ipv4");
  }
  return { list, bad };
}

export function addressPolicy(opts: { allowLoopback: boolean; allowedNetworks?: string }): TAddressPolicy {
  const text = opts.allowedNetworks ?? "";
  return { allowLoopback: opts.allowLoopback, allowed: parseCidrs(text).list, allowedText: text.trim() };
}

let cached: { key: string; policy: TAddressPolicy } | null = null;

/** The policy from the environment, rebuilt only when the variables change (it is read on every new connection). */
export function addressPolicyFromEnv(env: Readonly<Record<string, string | undefined>> = process.env): TAddressPolicy {
  const allowLoopback = isDemoMode() || env.NODE_ENV === "test" || env.SWITCHYARD_ALLOW_LOOPBACK_PROVIDERS === "1";
  const networks = env.SWITCHYARD_ALLOW_PRIVATE_PROVIDER_NETWORKS ?? "";
  const key = `${allowLoopback}|${networks}`;
  if (cached?.key !== key) {
    const { bad } = parseCidrs(networks);
    if (bad.length > 0) console.warn(`SWITCHYARD_ALLOW_PRIVATE_PROVIDER_NETWORKS: ignored ${bad.join(", ")} (not an address or CIDR)`);
    cached = { key, policy: addressPolicy({ allowLoopback, allowedNetworks: networks }) };
  }
  return cached.policy;
}

/** Why a provider call may not connect to this IP address (its range), or null when it may. */
export function forbiddenAddress(ip: string, policy: TAddressPolicy): string | null {
  const address = ip.replace(/%.*$/, "").replace(/^\[|\]$/g, "");
  const family = net.isIP(address);
  if (family === 0) return `${ip} is not an IP address`;
  const type = family === 6 ? "ipv6" : "ipv4";
  if (policy.allowed.check(address, type)) return null;
  if (LOOPBACK.list.check(address, type)) return policy.allowLoopback ? null : "loopback";
  for (const r of FORBIDDEN) if (r.list.check(address, type)) return r.label;
  return null;
}

/** Why a provider call may not go to this host name (metadata service, localhost), or null; addresses are checked again when it resolves. */
export function forbiddenHostName(host: string, policy: TAddressPolicy): string | null {
  const name = host.toLowerCase();
  if (net.isIP(name.replace(/^\[|\]$/g, "")) !== 0) return forbiddenAddress(name, policy);
  if (FORBIDDEN_NAMES.test(name)) return "cloud metadata";
  if (LOOPBACK_NAMES.test(name) && !policy.allowLoopback) return "loopback";
  return null;
}

/** The error text for a refused address, naming the operator's way out. */
export function addressRefusal(target: string, label: string): string {
  return `${target} is a ${label} address; provider calls may not reach it unless SWITCHYARD_ALLOW_PRIVATE_PROVIDER_NETWORKS allows it`;
}

import dns from "node:dns";
import net from "node:net";
import { addressRefusal, forbiddenAddress, forbiddenHostName, type TAddressPolicy } from "./address-policy";

/** A provider call refused before connecting: its address is one the policy forbids. */
export class ForbiddenAddressError extends Error {
  readonly code = "ERR_PROVIDER_ADDRESS_FORBIDDEN";
}

type TResolve = (
  hostname: string,
  options: dns.LookupAllOptions,
  callback: (err: NodeJS.ErrnoException | null, addresses: dns.LookupAddress[]) => void,
) => void;

/**
 * A DNS lookup for provider sockets (net/tls `lookup`, http agents) that refuses the connection
 * when any address the name resolves to is forbidden. The socket connects to exactly the
 * addresses checked here, so DNS rebinding between a check and the connect is impossible.
 */
export function guardedLookup(policy: () => TAddressPolicy, resolve: TResolve = dns.lookup): net.LookupFunction {
  return (hostname, options, callback) => {
    const p = policy();
    const byName = forbiddenHostName(hostname, p);
    if (byName) {
      callback(new ForbiddenAddressError(addressRefusal(hostname, byName)), "", 4);
      return;
    }
    resolve(hostname, { ...options, all: true }, (err, addresses) => {
      if (err) return callback(err, "", 4);
      for (const a of addresses) {
        const why = forbiddenAddress(a.address, p);
        if (why) return callback(new ForbiddenAddressError(addressRefusal(`${hostname} (${a.address})`, why)), "", 4);
      }
      if (addresses.length === 0) return callback(Object.assign(new Error(`${hostname} has no address`), { code: "ENOTFOUND" }), "", 4);
      // net.connect asks for all addresses when it races IPv4 and IPv6 (autoSelectFamily).
      if (options.all) (callback as unknown as (e: null, all: dns.LookupAddress[]) => void)(null, addresses);
      else callback(null, addresses[0]!.address, addresses[0]!.family);
    });
  };
}

/** For a literal IP host (which no lookup sees), the refusal; null for names and allowed addresses. */
export function literalRefusal(host: string, policy: TAddressPolicy): ForbiddenAddressError | null {
  if (net.isIP(host) === 0) return null;
  const why = forbiddenAddress(host, policy);
  return why ? new ForbiddenAddressError(addressRefusal(host, why)) : null;
}

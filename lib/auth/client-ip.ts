import type { IncomingMessage } from "node:http";

/**
 * The server stamps the client address on every request it hands to Next, replacing any
 * value a client sent, so the audit log's IP cannot be forged with a header. Behind a load
 * balancer (SWITCHYARD_TRUST_PROXY=1) the first X-Forwarded-For entry is the client.
 */
export const CLIENT_IP_HEADER = "x-switchyard-client-ip";

export function trustProxy(): boolean {
  return process.env.SWITCHYARD_TRUST_PROXY === "1";
}

export function stampClientIp(req: IncomingMessage): void {
  const forwarded = trustProxy()
    ? String(req.headers["x-forwarded-for"] ?? "")
        .split(",")[0]
        ?.trim()
    : "";
  req.headers[CLIENT_IP_HEADER] = forwarded || req.socket.remoteAddress || "";
}

export function clientIpOf(headers: Headers): string | null {
  return headers.get(CLIENT_IP_HEADER) || null;
}

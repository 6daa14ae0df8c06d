import http from "node:http";
import https from "node:https";
import { addressPolicyFromEnv } from "./address-policy";
import { classifyTransportError } from "./classify";
import { guardedLookup, literalRefusal } from "./guarded-lookup";
import { createHttp1Client } from "./http1-client";
import type { TUpstreamRequest } from "./types";

/** Provider calls reach only the addresses the operator allows (address-policy.ts), read from the environment when a connection opens. */
const policy = () => addressPolicyFromEnv(process.env);
const lookup = guardedLookup(policy);

/** Whole (non-streaming) exchanges: keep-alive pools per provider origin (http1-client.ts). */
const exchanges = createHttp1Client({ addressPolicy: policy });

/**
 * Keep-alive agents for streamed answers: a new TCP (and TLS) handshake per call would cost more
 * than the rest of the gateway's work together.
 */
const httpAgent = new http.Agent({ keepAlive: true, maxSockets: 512, keepAliveMsecs: 10_000 });
const httpsAgent = new https.Agent({ keepAlive: true, maxSockets: 512, keepAliveMsecs: 10_000 });

export type TUpstreamResponse = { status: number; headers: http.IncomingHttpHeaders; body: Buffer };
export type TUpstreamStream = { status: number; headers: http.IncomingHttpHeaders; response: http.IncomingMessage; abort(): void };

class TimedOut extends Error {}

/** One request with a whole-exchange timeout; transport failures reject with a classified AttemptError. */
export async function sendUpstream(req: TUpstreamRequest, timeoutMs: number): Promise<TUpstreamResponse> {
  let timedOut = false;
  try {
    return await exchanges.request(req, timeoutMs, () => {
      timedOut = true;
      return new TimedOut("timeout");
    });
  } catch (err) {
    throw classifyTransportError(err, timedOut);
  }
}

/**
 * Opens a streaming request; resolves once the status line and headers arrived (within
 * `firstByteTimeoutMs`). The caller reads `response` and owns aborting it.
 */
export function openUpstreamStream(req: TUpstreamRequest, firstByteTimeoutMs: number): Promise<TUpstreamStream> {
  return new Promise((resolve, reject) => {
    const url = new URL(req.url);
    const secure = url.protocol === "https:";
    const refused = literalRefusal(url.hostname.replace(/^\[|\]$/g, ""), policy());
    if (refused) {
      reject(classifyTransportError(refused, false));
      return;
    }
    const headers: Record<string, string | number> = { ...req.headers };
    if (req.body !== null) headers["content-length"] = Buffer.byteLength(req.body);
    const r = (secure ? https : http).request(url, { method: req.method, headers, agent: secure ? httpsAgent : httpAgent, lookup });
    let timedOut = false;
    let settled = false;
    const timer = setTimeout(() => {
      timedOut = true;
      r.destroy(new TimedOut("timeout"));
    }, firstByteTimeoutMs);
    r.on("response", (res) => {
      clearTimeout(timer);
      settled = true;
      resolve({ status: res.statusCode ?? 0, headers: res.headers, response: res, abort: () => r.destroy() });
    });
    r.on("error", (err) => {
      clearTimeout(timer);
      if (settled) return;
      settled = true;
      reject(classifyTransportError(err, timedOut));
    });
    r.end(req.body ?? undefined);
  });
}

export async function readAll(res: http.IncomingMessage): Promise<Buffer> {
  const chunks: Buffer[] = [];
  for await (const c of res) chunks.push(c as Buffer);
  return Buffer.concat(chunks);
}

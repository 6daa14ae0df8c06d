import { createHmac, timingSafeEqual } from "node:crypto";

/**
 * Webhook signing, the scheme Stripe and Slack use: HMAC-SHA256 over `${timestamp}.${body}`
 * with the channel's secret, the timestamp in its own header so a receiver can refuse replays
 * of an old message. The `v1=` prefix leaves room for a second scheme during a key change.
 */
export const SIGNATURE_HEADER = "x-switchyard-signature";
export const TIMESTAMP_HEADER = "x-switchyard-timestamp";
export const DELIVERY_HEADER = "x-switchyard-delivery";
export const EVENT_HEADER = "x-switchyard-event";

/** How far a receiver lets a timestamp be from its clock by default. */
export const DEFAULT_TOLERANCE_SECONDS = 300;

export function signWebhook(secret: string, timestamp: number, body: string): string {
  return `v1=${createHmac("sha256", secret).update(`${timestamp}.${body}`).digest("hex")}`;
}

export type TVerifyResult = { ok: true } | { ok: false; reason: string };

/**
 * What a receiver runs: the raw body as received (not re-serialised JSON), the two headers,
 * its clock. Constant-time comparison; any of several `v1=` values may match.
 */
export function verifyWebhookSignature(
  secret: string,
  headers: { signature: string | undefined; timestamp: string | undefined },
  rawBody: string,
  nowSeconds: number = Math.floor(Date.now() / 1000),
  toleranceSeconds: number = DEFAULT_TOLERANCE_SECONDS,
): TVerifyResult {
  const ts = Number(headers.timestamp);
  if (!headers.timestamp || !Number.isInteger(ts)) return { ok: false, reason: "missing or unreadable timestamp" };
  if (Math.abs(nowSeconds - ts) > toleranceSeconds) return { ok: false, reason: "timestamp outside the tolerance (a replay?)" };
  const expected = Buffer.from(signWebhook(secret, ts, rawBody));
  const offered = (headers.signature ?? "").split(",").map((s) => Buffer.from(s.trim()));
  const match = offered.some((o) => o.length === expected.length && timingSafeEqual(o, expected));
  return match ? { ok: true } : { ok: false, reason: "signature does not match" };
}

import { z } from "zod";
import type { TAdapter } from "../types";
import { joinUrl } from "./json-body";
import { compileString, compileValue, pathSegmentValue, type TTemplateScope } from "./template";

/** Options of the generic HTTP/JSON adapter, stored in provider_adapter.options. */
export const ZHttpJsonOptions = z.strictObject({
  method: z.enum(["GET", "POST", "PUT", "PATCH", "DELETE"]).default("POST"),
  /** Appended to the base URL; placeholders are URL-encoded, and in the path refused when they would change its segments. */
  path: z.string().default(""),
  headers: z.record(z.string(), z.string()).default({}),
  /** JSON body template; omitted: the caller's input as is. GET and DELETE send none. */
  body: z.unknown().optional(),
});
export type THttpJsonOptions = z.output<typeof ZHttpJsonOptions>;

/**
 * The generic adapter for SMS, email and other JSON APIs: a templated URL, headers and body.
 * Any 2xx is success and the provider's JSON body is returned as `body`.
 */
export function httpJsonAdapter(cfg: { baseUrl: string; options: THttpJsonOptions }): TAdapter {
  const whole = joinUrl(cfg.baseUrl, cfg.options.path || "/");
  const q = whole.indexOf("?");
  // Before the query a value is one path segment at most (no `..`, no slashes); after it, any encoded text.
  const path = compileString(q < 0 ? whole : whole.slice(0, q), pathSegmentValue);
  const query = compileString(q < 0 ? "" : whole.slice(q), encodeURIComponent);
  const url = (scope: TTemplateScope) => path(scope) + query(scope);
  const headers = Object.entries(cfg.options.headers).map(([k, v]) => [k.toLowerCase(), compileString(v)] as const);
  const hasBody = cfg.options.method !== "GET" && cfg.options.method !== "DELETE";
  const body = cfg.options.body === undefined ? null : compileValue(cfg.options.body);
  return {
    kind: "http_json",
    chat: false,
    build(req, credential) {
      const scope = { input: req.input, credential, requestId: req.requestId, idempotencyKey: req.idempotencyKey };
      const h: Record<string, string> = { accept: "application/json" };
      if (hasBody) h["content-type"] = "application/json";
      if (req.idempotencyKey) h["idempotency-key"] = req.idempotencyKey;
      for (const [k, f] of headers) h[k] = f(scope);
      const payload = hasBody ? JSON.stringify(body ? body(scope) : req.input) : null;
      return { url: url(scope), method: cfg.options.method, headers: h, body: payload };
    },
    parse(status, raw) {
      return { status, body: raw };
    },
  };
}

import fc from "fast-check";
import { anyJson, bearerBadAuth, KNOWN_FIELDS, type TFuzzEndpoint, type TFuzzRequest } from "./fuzz-cases";
import type { TObserved } from "./fuzz-run";
import { sendRaw } from "./raw-http";

/** What the data-plane fuzzer needs to know about the running server and its data. */
export type TDataPlaneFixture = {
  port: number;
  /** A key with every scope (SWITCHYARD_API_KEY or a scoped key). */
  apiKey: string;
  /** Keys that lack one scope each, so the scope check is fuzzed too: scope → a key without it. */
  keysLacking: Partial<Record<"decide" | "outcomes" | "read", string>>;
  /** Decisions that exist, so outcome and lookup mutations start from something valid. */
  decisionIds: string[];
  /** The decide calls behind them, so a case can reuse a requestId for another request. */
  decided: Array<{ operation: string; region: string; requestId: string }>;
  operations: string[];
  regions: string[];
};

type TOpenApi = { paths: Record<string, Record<string, { security?: unknown[] }>>; security?: unknown[] };

const SCOPE_OF: Record<string, "decide" | "outcomes" | "read"> = { "/api/v1/decide": "decide", "/api/v1/outcomes": "outcomes" };

function bodyFor(path: string, f: TDataPlaneFixture): fc.Arbitrary<unknown> | undefined {
  const decisionId = fc.constantFrom(...f.decisionIds);
  const provider = fc.constantFrom("provider_A", "provider_B", "provider_C");
  if (path === "/api/v1/decide") {
    return fc.record(
      {
        operation: fc.constantFrom(...f.operations),
        region: fc.constantFrom(...f.regions),
        requestId: fc.uuid(),
        attributes: fc.dictionary(fc.constantFrom("compliance", "providers", "tier"), fc.string({ maxLength: 20 }), { maxKeys: 2 }),
      },
      { requiredKeys: ["operation", "region", "requestId"] },
    );
  }
  if (path === "/api/v1/outcomes") {
    const call = fc.record({
      type: fc.constant("provider_call"),
      decisionId,
      provider,
      status: fc.constant("success"),
      latencyMs: fc.nat(5000),
      retryCount: fc.nat(3),
    });
    const business = fc.record({ type: fc.constant("business"), decisionId, completed: fc.constant(true), withinSla: fc.boolean() });
    const one = fc.oneof(call, business);
    return fc.oneof(
      one,
      fc.array(one, { minLength: 1, maxLength: 5 }).map((outcomes) => ({ outcomes })),
    );
  }
  // An endpoint this fuzzer has no template for (one that landed later): plausible field names, any values.
  return fc.dictionary(fc.constantFrom(...KNOWN_FIELDS), anyJson, { maxKeys: 6 });
}

/**
 * decide bodies under a requestId already used: for another region, with attributes the first
 * call did not send (both must be 422 idempotency_key_reused), or the same request (a replay).
 */
function reuseFor(path: string, f: TDataPlaneFixture): fc.Arbitrary<unknown> | undefined {
  if (path !== "/api/v1/decide") return undefined;
  return fc.tuple(fc.constantFrom(...f.decided), fc.nat(), fc.constantFrom("region", "attributes", "same")).map(([d, n, how]) => {
    const others = f.regions.filter((r) => r !== d.region);
    return {
      operation: d.operation,
      requestId: d.requestId,
      region: how === "region" && others.length > 0 ? others[n % others.length]! : d.region,
      ...(how === "attributes" ? { attributes: { compliance: "gdpr" } } : {}),
    };
  });
}

/**
 * One fuzz endpoint per operation in the server's own OpenAPI document, so an endpoint added
 * later (the gateway's execute) is fuzzed without touching this file.
 */
export function dataPlaneEndpoints(doc: TOpenApi, f: TDataPlaneFixture): { endpoints: TFuzzEndpoint[]; authenticated: Set<string> } {
  const endpoints: TFuzzEndpoint[] = [];
  const authenticated = new Set<string>();
  for (const [path, ops] of Object.entries(doc.paths)) {
    for (const [method, op] of Object.entries(ops)) {
      const upper = method.toUpperCase();
      const secured = (op.security ?? doc.security ?? []).length > 0;
      if (secured) authenticated.add(`${upper} ${path}`);
      const scope = SCOPE_OF[path] ?? (upper === "GET" ? "read" : undefined);
      const lacking = scope ? f.keysLacking[scope] : undefined;
      endpoints.push({
        method: upper,
        path,
        body: upper === "GET" ? undefined : bodyFor(path, f),
        reuse: upper === "GET" ? undefined : reuseFor(path, f),
        params: { id: fc.constantFrom(...f.decisionIds), operation: fc.constantFrom(...f.operations) },
        goodHeaders: [["Authorization", `Bearer ${f.apiKey}`]],
        badAuth: bearerBadAuth(lacking ? [`Bearer ${lacking}`] : []),
      });
    }
  }
  return { endpoints, authenticated };
}

/** Puts a fuzz case on the wire. */
export async function sendToDataPlane(port: number, req: TFuzzRequest): Promise<TObserved> {
  const res = await sendRaw(port, {
    method: req.method,
    target: req.target,
    headers: req.headers,
    ...(req.body ? { body: req.body } : {}),
    ...(req.declaredLength !== undefined ? { contentLength: req.declaredLength } : {}),
    ...(req.chunked ? { chunked: true } : {}),
  });
  // A server may stop reading an oversized body and close; so does one answering a GET without
  // reading its (pointless) body. The unread bytes make the kernel reset the connection, which
  // can discard the answer before the client reads it.
  if (!res.ok)
    return { ok: false, reason: res.reason, detail: res.detail, tolerated: req.category === "huge_body" && (res.resetWhileSending || req.method === "GET") };
  return { ok: true, status: res.status, contentType: res.headers["content-type"] ?? "", body: res.body.toString("utf8") };
}

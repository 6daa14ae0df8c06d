import fc from "fast-check";

/** What kind of wrongness a case carries; the summary table counts by it. */
export const FUZZ_CATEGORIES = [
  "bad_json",
  "wrong_content_type",
  "invalid_utf8",
  "huge_body",
  "deep_nesting",
  "duplicate_keys",
  "idempotency_reuse",
  "prototype_keys",
  "wrong_types",
  "wrong_method",
  "bad_path",
  "bad_auth",
] as const;
export type TFuzzCategory = (typeof FUZZ_CATEGORIES)[number];

/** A request as data, before it is put on the wire (data plane) or into a Request (control plane). */
export type TFuzzRequest = {
  category: TFuzzCategory;
  /** Which endpoint this case aims at, e.g. "POST /api/v1/decide". */
  endpoint: string;
  method: string;
  /** Path and query exactly as sent; may be malformed. */
  target: string;
  headers: Array<[string, string | Buffer]>;
  body?: Buffer;
  /** Send Transfer-Encoding: chunked instead of Content-Length. */
  chunked?: boolean;
  /** Declare this Content-Length whatever the body is. */
  declaredLength?: number;
};

/** An endpoint to aim at: a method, a path template with `{param}`s, and valid bodies to mutate. */
export type TFuzzEndpoint = {
  method: string;
  path: string;
  /** Valid (or nearly valid) request bodies; absent for endpoints without a body. */
  body?: fc.Arbitrary<unknown>;
  /** Valid values for the path parameters, to mutate one thing at a time. */
  params?: Record<string, fc.Arbitrary<string>>;
  /** The headers a well-formed call sends (credentials, same-origin markers). */
  goodHeaders: Array<[string, string]>;
  /** Ways to present wrong credentials for this endpoint. */
  badAuth: fc.Arbitrary<Array<[string, string | Buffer]>>;
  /** Categories that cannot reach this endpoint's code (in-process handlers never see another method). */
  exclude?: readonly TFuzzCategory[];
  /** Bodies that reuse an idempotency key already used (with another request, or the same one replayed). */
  reuse?: fc.Arbitrary<unknown>;
};

const utf8 = (s: string) => Buffer.from(s, "utf8");

/** Byte sequences that are not UTF-8: stray continuation, overlong, surrogate, out of range, truncated. */
const INVALID_UTF8: readonly number[][] = [
  [0x80],
  [0xff],
  [0xfe, 0xff],
  [0xc0, 0x80],
  [0xc1, 0xbf],
  [0xed, 0xa0, 0x80],
  [0xf4, 0x90, 0x80, 0x80],
  [0xf8, 0x88, 0x80, 0x80, 0x80],
  [0xe2, 0x82],
  [0xf0, 0x9f, 0x98],
];

/** JSON escapes that are valid JSON but troublesome downstream (Postgres rejects \u0000 in text and jsonb). */
const NASTY_ESCAPES = ["\\u0000", "\\ud800", "\\udfff", "\\ud83d", "\\u202e", "\\ufeff", "\\u0085"];

export const KNOWN_FIELDS = [
  "operation",
  "region",
  "requestId",
  "attributes",
  "outcomes",
  "type",
  "decisionId",
  "provider",
  "status",
  "errorClass",
  "httpStatus",
  "latencyMs",
  "retryCount",
  "completed",
  "failureStage",
  "withinSla",
  "name",
  "email",
  "password",
  "roles",
  "scopes",
  "operationKeys",
  "yaml",
  "reason",
  "kind",
  "expiresAt",
  "note",
  "lockVersion",
  "format",
  "limit",
  "before",
  "from",
  "to",
  "providers",
  "input",
  "idempotencyKey",
] as const;

const CONTENT_TYPES = [
  null,
  "text/plain",
  "application/x-www-form-urlencoded",
  "multipart/form-data; boundary=x",
  "application/xml",
  "application/json-seq",
  "application/jsonx",
  "json",
  "*/*",
  "application/",
  ";",
  "application/json\u0000",
  "text/json",
  "application/merge-patch+json",
];

const WRONG_METHODS = ["GET", "PUT", "PATCH", "DELETE", "OPTIONS", "TRACE", "PROPFIND", "POST", "get", "FOO"];

/** A JSON value of any type, small. */
export const anyJson = fc.jsonValue({ maxDepth: 2 });

function jsonText(value: unknown): string {
  return JSON.stringify(value) ?? "null";
}

/** Puts `inner` at a random string position of some JSON text, or appends it. */
function spliceIntoString(text: string, pick: number, inner: Buffer): Buffer {
  const quotes: number[] = [];
  for (let i = 0; i < text.length; i++) if (text[i] === '"' && text[i - 1] !== "\\") quotes.push(i);
  if (quotes.length < 2) return Buffer.concat([utf8(text), inner]);
  // Every other quote opens a string: insert right after an opening one.
  const opening = quotes.filter((_, i) => i % 2 === 0);
  const at = opening[pick % opening.length]! + 1;
  return Buffer.concat([utf8(text.slice(0, at)), inner, utf8(text.slice(at))]);
}

function nest(depth: number, asArray: boolean): string {
  return asArray ? `${"[".repeat(depth)}1${"]".repeat(depth)}` : `${'{"a":'.repeat(depth)}1${"}".repeat(depth)}`;
}

function fillPath(template: string, values: Record<string, string>): string {
  return template.replace(/\{(\w+)\}/g, (_, name: string) => encodeURIComponent(values[name] ?? "x"));
}

/** Replaces a value at a random key path of an object with another value. */
function replaceAt(value: unknown, pick: number, replacement: unknown, drop: boolean): unknown {
  if (value === null || typeof value !== "object") return replacement;
  const copy: Record<string, unknown> | unknown[] = Array.isArray(value) ? [...value] : { ...(value as Record<string, unknown>) };
  const keys = Object.keys(copy);
  if (keys.length === 0) return replacement;
  const key = keys[pick % keys.length]!;
  const child = (copy as Record<string, unknown>)[key];
  const deeper = child !== null && typeof child === "object" && pick % 3 === 0;
  if (deeper) (copy as Record<string, unknown>)[key] = replaceAt(child, Math.floor(pick / 3), replacement, drop);
  else if (drop && !Array.isArray(copy)) delete copy[key];
  else (copy as Record<string, unknown>)[key] = replacement;
  return copy;
}

/** What every case of one endpoint is built from: its well-formed parameters and body, and a request around them. */
type TCaseKit = {
  ep: TFuzzEndpoint;
  paramNames: string[];
  goodParams: fc.Arbitrary<Record<string, string>>;
  goodBody: fc.Arbitrary<unknown>;
  base: (category: TFuzzCategory, params: Record<string, string>, body: Buffer | undefined, extra?: Array<[string, string | Buffer]>) => TFuzzRequest;
  bodyText: (v: unknown) => string;
  withBody: boolean;
};

function caseKit(ep: TFuzzEndpoint): TCaseKit {
  const endpoint = `${ep.method} ${ep.path}`;
  const paramNames = [...ep.path.matchAll(/\{(\w+)\}/g)].map((m) => m[1]!);
  const goodParams: fc.Arbitrary<Record<string, string>> = fc.record(
    Object.fromEntries(paramNames.map((n) => [n, ep.params?.[n] ?? fc.uuid()])) as Record<string, fc.Arbitrary<string>>,
  );
  const goodBody: fc.Arbitrary<unknown> = ep.body ?? fc.constant(undefined);
  const jsonType: Array<[string, string]> = [["Content-Type", "application/json"]];
  const base = (
    category: TFuzzCategory,
    params: Record<string, string>,
    body: Buffer | undefined,
    extra: Array<[string, string | Buffer]> = jsonType,
  ): TFuzzRequest => ({
    category,
    endpoint,
    method: ep.method,
    target: fillPath(ep.path, params),
    headers: [...ep.goodHeaders, ...(body === undefined ? [] : extra)],
    ...(body === undefined ? {} : { body }),
  });
  const bodyText = (v: unknown) => (ep.body ? jsonText(v) : "");
  const withBody = ep.body !== undefined;

  return { ep, paramNames, goodParams, goodBody, base, bodyText, withBody };
}

function badJsonCase({ goodParams, goodBody, base, bodyText }: TCaseKit): fc.Arbitrary<TFuzzRequest> {
  return fc
    .tuple(goodParams, goodBody, fc.nat(), fc.constantFrom("truncate", "garbage", "trailing", "single_quotes", "nan", "empty", "bom", "comment", "two_docs"))
    .map(([p, b, n, how]) => {
      const text = bodyText(b) || '{"a":1}';
      const cut = text.slice(0, n % Math.max(1, text.length));
      const bodies: Record<string, string> = {
        truncate: cut,
        garbage: `${cut}\u0001}{]`,
        trailing: `${text.slice(0, -1)},}`,
        single_quotes: text.replace(/"/g, "'"),
        nan: `{"value": NaN, "x": Infinity}`,
        empty: "",
        bom: `\ufeff${text}`,
        comment: `// ${n}\n${text}`,
        two_docs: `${text}${text}`,
      };
      return base("bad_json", p, utf8(bodies[how]!));
    });
}

function wrongContentTypeCase({ goodParams, goodBody, base, bodyText }: TCaseKit): fc.Arbitrary<TFuzzRequest> {
  return fc
    .tuple(goodParams, goodBody, fc.constantFrom(...CONTENT_TYPES))
    .map(([p, b, ct]) => base("wrong_content_type", p, utf8(bodyText(b) || "{}"), ct === null ? [] : [["Content-Type", ct]]));
}

function invalidUtf8Case({ goodParams, goodBody, base, bodyText }: TCaseKit): fc.Arbitrary<TFuzzRequest> {
  return fc
    .tuple(goodParams, goodBody, fc.nat(), fc.constantFrom(...INVALID_UTF8), fc.boolean(), fc.constantFrom(...NASTY_ESCAPES))
    .map(([p, b, n, bytes, raw, escape]) => base("invalid_utf8", p, spliceIntoString(bodyText(b) || '{"a":"b"}', n, raw ? Buffer.from(bytes) : utf8(escape))));
}

function hugeBodyCase({ goodParams, goodBody, base, bodyText }: TCaseKit): fc.Arbitrary<TFuzzRequest> {
  return fc
    .tuple(
      goodParams,
      goodBody,
      fc.constantFrom("big_field", "many_keys", "lying_length", "chunked_big", "long_array"),
      fc.constantFrom(20 * 1024, 2 * 1024 * 1024 + 17, 3 * 1024 * 1024),
    )
    .map(([p, b, how, size]) => {
      if (how === "lying_length") return { ...base("huge_body", p, utf8(bodyText(b) || "{}")), declaredLength: 10 ** 12 };
      const obj = (b && typeof b === "object" ? b : {}) as Record<string, unknown>;
      const text =
        how === "many_keys"
          ? jsonText({ ...obj, attributes: Object.fromEntries(Array.from({ length: Math.ceil(size / 24) }, (_, i) => [`k${i}`, "v"])) })
          : how === "long_array"
            ? jsonText({ ...obj, outcomes: Array.from({ length: Math.ceil(size / 8) }, () => 0) })
            : jsonText({ ...obj, requestId: "x".repeat(size) });
      return { ...base("huge_body", p, utf8(text)), ...(how === "chunked_big" ? { chunked: true } : {}) };
    });
}

// Up to 4 million levels: as deep as execute's 8 MB (outcomes' 2 MB takes 1 million) allows.
function deepNestingCase({ goodParams, goodBody, base }: TCaseKit): fc.Arbitrary<TFuzzRequest> {
  return fc
    .tuple(goodParams, goodBody, fc.constantFrom(100, 1_000, 10_000, 100_000, 1_000_000, 4_000_000), fc.boolean(), fc.boolean())
    .map(([p, b, depth, asArray, inside]) => {
      const nested = nest(depth, asArray || depth > 100_000);
      const obj = b && typeof b === "object" && !Array.isArray(b) ? (b as Record<string, unknown>) : {};
      const key = Object.keys(obj)[0];
      // Inside: the nesting replaces a real field, so it gets past the envelope to the field check.
      const text = inside && key !== undefined ? jsonText({ ...obj, [key]: "\u0000NEST" }).replace('"\\u0000NEST"', nested) : nested;
      return base("deep_nesting", p, utf8(text));
    });
}

// A key of some object said twice with different values (JSON.parse would keep the last),
// spelled the same or with a \u escape.
function duplicateKeyCase({ goodParams, goodBody, base, bodyText }: TCaseKit): fc.Arbitrary<TFuzzRequest> {
  return fc.tuple(goodParams, goodBody, fc.nat(), anyJson, fc.boolean()).map(([p, b, n, v, escaped]) => {
    const text = bodyText(b) || '{"a":1}';
    const keys = [...text.matchAll(/\{"([A-Za-z][^"\\]*)":/g)];
    if (keys.length === 0) return base("duplicate_keys", p, utf8(`{"a":${jsonText(v)},"a":1}`));
    const m = keys[n % keys.length]!;
    const key = m[1]!;
    const spelled = escaped ? `\\u${key.charCodeAt(0).toString(16).padStart(4, "0")}${key.slice(1)}` : key;
    const at = m.index! + 1;
    return base("duplicate_keys", p, utf8(`${text.slice(0, at)}"${spelled}":${jsonText(v)},${text.slice(at)}`));
  });
}

function reuseCase({ ep, goodParams, base }: TCaseKit): fc.Arbitrary<TFuzzRequest> {
  return fc.tuple(goodParams, ep.reuse ?? fc.constant(undefined)).map(([p, b]) => base("idempotency_reuse", p, utf8(jsonText(b))));
}

function prototypeKeyCase({ goodParams, goodBody, base, bodyText }: TCaseKit): fc.Arbitrary<TFuzzRequest> {
  return fc
    .tuple(goodParams, goodBody, fc.constantFrom("__proto__", "constructor", "prototype", "hasOwnProperty", "toString", "__defineGetter__"), fc.boolean())
    .map(([p, b, key, nested]) => {
      const text = bodyText(b) || "{}";
      const payload = `{"polluted":true,"isAdmin":true,"roles":["admin"]}`;
      const injected =
        nested && text.includes('"attributes":{')
          ? text.replace('"attributes":{', `"attributes":{"${key}":${payload},`)
          : text.replace(/^\{/, `{"${key}":${payload}${text === "{}" ? "" : ","}`);
      return base("prototype_keys", p, utf8(injected));
    });
}

function wrongTypesCase({ goodParams, goodBody, base }: TCaseKit): fc.Arbitrary<TFuzzRequest> {
  return fc.tuple(goodParams, goodBody, fc.nat(), anyJson, fc.constantFrom("replace", "drop", "add", "whole")).map(([p, b, n, v, how]) => {
    const obj = b ?? {};
    const mutated =
      how === "whole"
        ? v
        : how === "add"
          ? { ...(typeof obj === "object" && obj !== null ? obj : {}), [KNOWN_FIELDS[n % KNOWN_FIELDS.length]! + (n % 2 ? "" : "_x")]: v }
          : replaceAt(obj, n, v, how === "drop");
    return base("wrong_types", p, utf8(jsonText(mutated)));
  });
}

function wrongMethodCase({ ep, goodParams, goodBody, base, bodyText, withBody }: TCaseKit): fc.Arbitrary<TFuzzRequest> {
  return fc.tuple(goodParams, goodBody, fc.constantFrom(...WRONG_METHODS.filter((m) => m !== ep.method))).map(([p, b, m]) => ({
    ...base("wrong_method", p, withBody ? utf8(bodyText(b)) : undefined),
    method: m,
  }));
}

function badPathCase({ ep, paramNames, goodParams, goodBody, base, bodyText, withBody }: TCaseKit): fc.Arbitrary<TFuzzRequest> {
  const badPathValue = fc.oneof(
    fc.constantFrom(
      "%zz",
      "%",
      "%00",
      "..%2f..%2fetc%2fpasswd",
      "null",
      "undefined",
      "-1",
      "0",
      "1e309",
      "NaN",
      "%E0%A4%A",
      "%C0%AF",
      "%ED%A0%80",
      "x".repeat(9000),
      "\u202e",
      "' or 1=1 --",
      "${jndi:x}",
    ),
    fc.string({ unit: "binary", maxLength: 40 }).map((s) => encodeURIComponent(s)),
  );
  return fc.tuple(goodParams, goodBody, badPathValue, fc.constantFrom("param", "query", "suffix", "double_slash", "unknown")).map(([p, b, bad, where]) => {
    const req = base("bad_path", p, withBody ? utf8(bodyText(b)) : undefined);
    const firstParam = paramNames[0];
    const path = ep.path.replace(/\{(\w+)\}/g, (_, name: string) => (name === firstParam && where === "param" ? bad : encodeURIComponent(p[name] ?? "x")));
    const target =
      where === "query"
        ? `${path}?${bad}=${bad}&limit=${bad}`
        : where === "suffix"
          ? `${path}/${bad}`
          : where === "double_slash"
            ? path.replace(/\//g, "//")
            : where === "unknown"
              ? `${path.replace(/[^/]+$/, "")}${bad}`
              : path;
    return { ...req, target };
  });
}

function badAuthCase({ ep, goodParams, goodBody, base, bodyText, withBody }: TCaseKit): fc.Arbitrary<TFuzzRequest> {
  return fc.tuple(goodParams, goodBody, ep.badAuth).map(([p, b, auth]) => {
    const req = base("bad_auth", p, withBody ? utf8(bodyText(b)) : undefined);
    const credentialHeaders = new Set(["authorization", "cookie", "origin", "sec-fetch-site"]);
    return { ...req, headers: [...req.headers.filter(([name]) => !credentialHeaders.has(name.toLowerCase())), ...auth] };
  });
}

/**
 * All the ways this fuzzer gets a request wrong, for one endpoint. Each case changes one thing
 * about an otherwise well-formed call (so it reaches the check it is aimed at) or, for
 * wrong_types, replaces, drops or adds a field.
 */
export function fuzzRequestArbitrary(ep: TFuzzEndpoint): fc.Arbitrary<TFuzzRequest> {
  const k = caseKit(ep);
  const withBody = k.withBody;
  const wrongMethod = wrongMethodCase(k);
  const badPath = badPathCase(k);
  const badAuth = badAuthCase(k);
  const huge = hugeBodyCase(k);
  // Huge bodies cost megabytes each to build and send: one in about twenty cases.
  const all: Array<[TFuzzCategory, fc.Arbitrary<TFuzzRequest>]> = withBody
    ? [
        ["bad_json", badJsonCase(k)],
        ["wrong_content_type", wrongContentTypeCase(k)],
        ["invalid_utf8", invalidUtf8Case(k)],
        ["huge_body", huge],
        ["deep_nesting", deepNestingCase(k)],
        ["duplicate_keys", duplicateKeyCase(k)],
        ...(ep.reuse ? [["idempotency_reuse", reuseCase(k)] as [TFuzzCategory, fc.Arbitrary<TFuzzRequest>]] : []),
        ["prototype_keys", prototypeKeyCase(k)],
        ["wrong_types", wrongTypesCase(k)],
        ["wrong_method", wrongMethod],
        ["bad_path", badPath],
        ["bad_auth", badAuth],
      ]
    : [
        ["wrong_method", wrongMethod],
        ["bad_path", badPath],
        ["bad_auth", badAuth],
        ["huge_body", huge],
      ];
  const chosen = all.filter(([c]) => !ep.exclude?.includes(c));
  return fc.oneof(...chosen.map(([c, arbitrary]) => ({ arbitrary, weight: c === "huge_body" ? 1 : 2 })));
}

/** Wrong credentials for the data plane's Bearer keys. */
export function bearerBadAuth(extra: string[] = []): fc.Arbitrary<Array<[string, string | Buffer]>> {
  return fc.oneof(
    fc.constant<Array<[string, string | Buffer]>>([]),
    fc.constantFrom<Array<[string, string | Buffer]>>(
      [["Authorization", "Basic Zm9vOmJhcg=="]],
      [["Authorization", "Bearer"]],
      [["Authorization", "Bearer "]],
      [["Authorization", "Bearer sy_"]],
      [["Authorization", "Bearer sy_00000000_not-a-key"]],
      [["Authorization", "Token abc"]],
      [["Authorization", `Bearer ${"A".repeat(16_000)}`]],
      [["Authorization", Buffer.from([0x42, 0x65, 0x61, 0x72, 0x65, 0x72, 0x20, 0xff, 0xfe, 0x80])]],
      [
        ["Authorization", "Bearer a"],
        ["Authorization", "Bearer b"],
      ],
      [["Authorization", "Bearer %00%ff"]],
      [["Cookie", "sy_session=abc"]],
      ...extra.map((h): Array<[string, string]> => [["Authorization", h]]),
    ),
    fc.string({ maxLength: 60 }).map((s): Array<[string, string]> => [["Authorization", `Bearer ${s.replace(/[\r\n]/g, "")}`]]),
  );
}

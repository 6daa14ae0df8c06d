/**
 * Templates for the generic HTTP adapter, compiled once when the configuration loads. A string
 * that is exactly one placeholder (`"{{input.amount}}"`) takes the value as is (numbers stay
 * numbers); placeholders inside a longer string are stringified. Known roots: input.<path>,
 * credential, requestId, idempotencyKey.
 */
export type TTemplateScope = { input: Readonly<Record<string, unknown>>; credential: string | null; requestId: string; idempotencyKey: string | null };
export type TCompiled = (scope: TTemplateScope) => unknown;

/** The caller's request does not fit a provider template: a 422 naming the field (`path`), not a provider failure. */
export class TemplateInputError extends Error {
  constructor(
    readonly path: string,
    message: string,
  ) {
    super(message);
  }
}

/** The caller's input lacks a field a provider template needs. */
export class MissingInputError extends TemplateInputError {
  constructor(readonly field: string) {
    super(`input.${field}`, `input.${field} is required by the provider's request template`);
  }
}

/** Percent-decoded until nothing changes (bounded): `%252f` is a slash to a server that decodes twice. */
function fullyDecoded(value: string): string {
  let v = value;
  for (let i = 0; i < 5; i++) {
    let next: string;
    try {
      next = decodeURIComponent(v);
    } catch {
      return v;
    }
    if (next === v) return v;
    v = next;
  }
  return v;
}

/**
 * A caller's value placed in a URL path: percent-encoded, and refused when it could change the
 * path's segments however a server decodes it (`.`, `..`, empty, `/`, `\`, encoded or
 * double-encoded slashes), so `/tenant/acme/users/{{input.a}}` never leaves `/tenant/acme/users/`.
 */
export function pathSegmentValue(value: string, placeholder: string): string {
  if (placeholder === "credential") return encodeURIComponent(value);
  const decoded = fullyDecoded(value);
  if (decoded === "" || /^\.+$/.test(decoded) || /[/\\]/.test(decoded)) {
    const path = placeholder === "idempotencyKey" ? "Idempotency-Key" : placeholder;
    throw new TemplateInputError(path, `${path} goes into the provider's URL path and may not be empty, only dots, or contain / or \\ (encoded or not)`);
  }
  return encodeURIComponent(value);
}

const WHOLE = /^\{\{\s*([A-Za-z0-9_.]+)\s*\}\}$/;
const ANY = /\{\{\s*([A-Za-z0-9_.]+)\s*\}\}/g;

function resolver(path: string): (scope: TTemplateScope) => unknown {
  const [root, ...rest] = path.split(".");
  if (root === "credential" && rest.length === 0) return (s) => s.credential ?? "";
  if (root === "requestId" && rest.length === 0) return (s) => s.requestId;
  if (root === "idempotencyKey" && rest.length === 0) return (s) => s.idempotencyKey ?? s.requestId;
  if (root === "input" && rest.length > 0) {
    const field = rest.join(".");
    return (s) => {
      let v: unknown = s.input;
      for (const k of rest) {
        v = v !== null && typeof v === "object" && Object.hasOwn(v, k) ? (v as Record<string, unknown>)[k] : undefined;
        if (v === undefined) throw new MissingInputError(field);
      }
      return v;
    };
  }
  throw new RangeError(`unknown template placeholder {{${path}}}; use input.<field>, credential, requestId or idempotencyKey`);
}

/** `encode` gets each substituted value and the placeholder it came from (`input.to`, `requestId`). */
export function compileString(template: string, encode: (s: string, placeholder: string) => string = (s) => s): (scope: TTemplateScope) => string {
  const parts: Array<string | { placeholder: string; get: (s: TTemplateScope) => unknown }> = [];
  let last = 0;
  for (const m of template.matchAll(ANY)) {
    parts.push(template.slice(last, m.index));
    parts.push({ placeholder: m[1]!, get: resolver(m[1]!) });
    last = m.index! + m[0].length;
  }
  parts.push(template.slice(last));
  if (parts.length === 1) return () => template;
  return (scope) => {
    let out = "";
    for (const p of parts) {
      if (typeof p === "string") out += p;
      else {
        const v = p.get(scope);
        out += encode(typeof v === "string" ? v : JSON.stringify(v), p.placeholder);
      }
    }
    return out;
  };
}

export function compileValue(template: unknown): TCompiled {
  if (typeof template === "string") {
    const whole = WHOLE.exec(template);
    if (whole) return resolver(whole[1]!);
    const f = compileString(template);
    return f;
  }
  if (Array.isArray(template)) {
    const items = template.map(compileValue);
    return (s) => items.map((f) => f(s));
  }
  if (template !== null && typeof template === "object") {
    const entries = Object.entries(template).map(([k, v]) => [k, compileValue(v)] as const);
    return (s) => {
      const out: Record<string, unknown> = {};
      for (const [k, f] of entries) out[k] = f(s);
      return out;
    };
  }
  return () => template;
}

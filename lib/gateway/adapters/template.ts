/**
 * Templates for the generic HTTP adapter, compiled once when the configuration loads. A string
 * that is exactly one placeholder (`"{{input.amount}}"`) takes the value as is (numbers stay
 * numbers); placeholders inside a longer string are stringified. Known roots: input.<path>,
 * credential, requestId, idempotencyKey.
 */
export type TTemplateScope = { input: Readonly<Record<string, unknown>>; credential: string | null; requestId: string; idempotencyKey: string | null };
export type TCompiled = (scope: TTemplateScope) => unknown;

/** The caller's input lacks a field a provider template needs: a 422 naming it, not a provider failure. */
export class MissingInputError extends Error {
  constructor(readonly field: string) {
    super(`input.${field} is required by the provider's request template`);
  }
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

export function compileString(template: string, encode: (s: string) => string = (s) => s): (scope: TTemplateScope) => string {
  const parts: Array<string | ((s: TTemplateScope) => unknown)> = [];
  let last = 0;
  for (const m of template.matchAll(ANY)) {
    parts.push(template.slice(last, m.index));
    parts.push(resolver(m[1]!));
    last = m.index! + m[0].length;
  }
  parts.push(template.slice(last));
  if (parts.length === 1) return () => template;
  return (scope) => {
    let out = "";
    for (const p of parts) {
      if (typeof p === "string") out += p;
      else {
        const v = p(scope);
        out += encode(typeof v === "string" ? v : JSON.stringify(v));
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

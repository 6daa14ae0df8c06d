/**
 * Guards for `restore…` functions: persisted state comes back from Postgres or another instance,
 * so it is checked field by field and a mismatch names the field instead of failing later deep
 * inside a step function.
 */

export type TJsonObject = Record<string, unknown>;

export function expectObject(path: string, value: unknown): TJsonObject {
  if (typeof value !== "object" || value === null || Array.isArray(value)) {
    throw new TypeError(`${path} must be an object, got ${describe(value)}`);
  }
  return value as TJsonObject;
}

export function expectArray(path: string, value: unknown): unknown[] {
  if (!Array.isArray(value)) throw new TypeError(`${path} must be an array, got ${describe(value)}`);
  return value;
}

export function expectNumber(path: string, value: unknown): number {
  if (typeof value !== "number" || !Number.isFinite(value)) {
    throw new TypeError(`${path} must be a finite number, got ${describe(value)}`);
  }
  return value;
}

export function expectNullableNumber(path: string, value: unknown): number | null {
  return value === null || value === undefined ? null : expectNumber(path, value);
}

export function expectString(path: string, value: unknown): string {
  if (typeof value !== "string") throw new TypeError(`${path} must be a string, got ${describe(value)}`);
  return value;
}

export function expectNullableString(path: string, value: unknown): string | null {
  return value === null || value === undefined ? null : expectString(path, value);
}

export function expectOneOf<const T extends readonly string[]>(path: string, value: unknown, allowed: T): T[number] {
  if (typeof value !== "string" || !allowed.includes(value)) {
    throw new TypeError(`${path} must be one of ${allowed.join(", ")}, got ${describe(value)}`);
  }
  return value as T[number];
}

export function expectStringArray(path: string, value: unknown): string[] {
  return expectArray(path, value).map((item, i) => expectString(`${path}[${i}]`, item));
}

export function expectNumberRecord(path: string, value: unknown): Record<string, number> {
  const out: Record<string, number> = {};
  for (const [key, item] of Object.entries(expectObject(path, value))) out[key] = expectNumber(`${path}.${key}`, item);
  return out;
}

function describe(value: unknown): string {
  if (value === null) return "null";
  if (value === undefined) return "nothing";
  if (Array.isArray(value)) return "an array";
  if (typeof value === "object") return "an object";
  return typeof value === "string" ? JSON.stringify(value) : String(value);
}

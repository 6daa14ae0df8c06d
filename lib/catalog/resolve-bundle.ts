import type { z } from "zod";
import type { GatewayOperation, Operation, Provider, ProviderAdapter } from "../db";
import type { TFieldError } from "../errors";
import { adapterOf, limitsOf, operationOf, providerOf } from "./catalog-rows";
import type { TBundle } from "./bundle";
import { ZAdapter, ZGatewayLimits, ZOperation, ZProvider, type TAdapter, type TGatewayLimits, type TOperation, type TProvider } from "./schemas";

export type TResolvedProvider = TProvider & { adapter?: TAdapter | null };
export type TResolvedOperation = TOperation & { gatewayLimits?: TGatewayLimits | null; factorList?: Record<string, unknown> | null };
/** A bundle with every field filled: what each item will be once applied. */
export type TResolvedBundle = { providers: TResolvedProvider[]; operations: TResolvedOperation[] };

export type TRows = {
  providerBy: Map<string, Provider>;
  adapterBy: Map<string, ProviderAdapter>;
  operationBy: Map<string, Operation>;
  limitsBy: Map<string, GatewayOperation>;
};

/** `a.b[0].c`: the one path notation bundle errors use (items of providers and operations by key). */
export function fieldPath(prefix: string, path: readonly PropertyKey[]): string {
  let out = prefix;
  for (const part of path) out += typeof part === "number" ? `[${part}]` : out === "" ? String(part) : `.${String(part)}`;
  return out;
}

/**
 * Merge semantics: each item's named fields over its current value (or over the defaults when it
 * is new), validated whole with the catalogue's schema, errors named `providers[key].field`.
 */
export function resolveBundle(bundle: TBundle, rows: TRows, errors: TFieldError[]): TResolvedBundle {
  function merged<T>(schema: z.ZodType<T>, current: T | null, named: Record<string, unknown>, at: string): T | null {
    const defined = Object.fromEntries(Object.entries(named).filter(([, v]) => v !== undefined));
    const parsed = schema.safeParse({ ...(current ?? {}), ...defined });
    if (parsed.success) return parsed.data;
    for (const i of parsed.error.issues) errors.push({ path: fieldPath(at, i.path), message: i.message });
    return null;
  }
  const providers: TResolvedProvider[] = [];
  for (const { adapter, ...fields } of bundle.providers) {
    const row = rows.providerBy.get(fields.key);
    const provider = merged(ZProvider, row ? providerOf(row) : null, fields, `providers[${fields.key}]`);
    if (!provider) continue;
    if (!adapter) providers.push(adapter === null ? { ...provider, adapter: null } : provider);
    else {
      const a = rows.adapterBy.get(fields.key);
      const next = merged(ZAdapter, a ? adapterOf(a) : null, adapter, `providers[${fields.key}].adapter`);
      if (next) providers.push({ ...provider, adapter: next });
    }
  }
  const operations: TResolvedOperation[] = [];
  for (const { gatewayLimits, factorList, ...fields } of bundle.operations) {
    const row = rows.operationBy.get(fields.key);
    const operation = merged(ZOperation, row ? operationOf(row) : null, fields, `operations[${fields.key}]`);
    const l = rows.limitsBy.get(fields.key);
    const limits = gatewayLimits ? merged(ZGatewayLimits, l ? limitsOf(l) : null, gatewayLimits, `operations[${fields.key}].gatewayLimits`) : undefined;
    if (operation && limits !== null) operations.push({ ...operation, ...(limits ? { gatewayLimits: limits } : {}), ...(factorList ? { factorList } : {}) });
  }
  return { providers, operations };
}

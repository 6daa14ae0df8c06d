import type { TGatewayContext } from "../gateway";

/** What a `model` names: an operation, and the region its requests route in (null: not fixed). */
export type TModelTarget = { operation: string; region: string | null };

/** One entry of GET /models. */
export type TModelEntry = { id: string; operation: string; region: string | null; alias: boolean };

/**
 * SWITCHYARD_OPENAI_MODELS: `alias=OPERATION[@REGION]`, comma-separated, e.g.
 * `gpt-4o-mini=LLM_CHAT@EU,chat=LLM_CHAT`. Aliases live in the environment because the schema
 * has no per-operation place for them; a bad entry stops the start, naming the variable.
 */
export function parseModelAliases(raw: string | undefined): ReadonlyMap<string, TModelTarget> {
  const aliases = new Map<string, TModelTarget>();
  if (raw === undefined || raw.trim() === "") return aliases;
  for (const entry of raw.split(",")) {
    const trimmed = entry.trim();
    if (trimmed === "") continue;
    const eq = trimmed.indexOf("=");
    const alias = eq === -1 ? "" : trimmed.slice(0, eq).trim();
    const target = eq === -1 ? null : splitModel(trimmed.slice(eq + 1).trim());
    if (alias === "" || target === null || target.operation === "") {
      throw new RangeError(`SWITCHYARD_OPENAI_MODELS: "${trimmed}" is not alias=OPERATION[@REGION]`);
    }
    if (aliases.has(alias)) throw new RangeError(`SWITCHYARD_OPENAI_MODELS: alias "${alias}" appears twice`);
    aliases.set(alias, target);
  }
  return aliases;
}

/** `OPERATION@REGION` → both; `OPERATION` → region null. */
export function splitModel(model: string): TModelTarget {
  const at = model.lastIndexOf("@");
  if (at <= 0 || at === model.length - 1) return { operation: model, region: null };
  return { operation: model.slice(0, at), region: model.slice(at + 1) };
}

/** Operations with at least one chat adapter among their candidates: the ones a chat completion can name. */
export function chatOperations(ctx: Pick<TGatewayContext, "state" | "config">): string[] {
  const adapters = ctx.config().adapters;
  const allProviders = ctx.state.providers().map((p) => p.key);
  return ctx.state
    .operations()
    .filter((op) => {
      const active = ctx.state.policyFor(op);
      if (!active) return false;
      const candidates = active.policy.providers.length > 0 ? active.policy.providers : allProviders;
      return candidates.some((p) => adapters.get(p)?.adapter.chat === true);
    })
    .sort();
}

export type TResolution = { ok: true; operation: string; region: string } | { ok: false; status: 404 | 400; code: string; message: string; param: string };

/**
 * The operation and region a request routes in. Region, first found: the model's `@REGION`
 * (or its alias's), the `x-switchyard-region` header, the operation's only known region.
 */
export function resolveModel(
  ctx: Pick<TGatewayContext, "state" | "config">,
  aliases: ReadonlyMap<string, TModelTarget>,
  model: string,
  regionHeader: string | undefined,
): TResolution {
  const target = aliases.get(model) ?? splitModel(model);
  const chat = chatOperations(ctx);
  if (!chat.includes(target.operation)) {
    const known = [...chat, ...aliases.keys()].join(", ") || "none";
    return {
      ok: false,
      status: 404,
      code: "model_not_found",
      message: `The model \`${model}\` does not exist: name an LLM operation, OPERATION@REGION or an alias (known: ${known})`,
      param: "model",
    };
  }
  const regions = ctx.state.knownRegions(target.operation);
  const region = target.region ?? (regionHeader?.trim() || null) ?? (regions.length === 1 ? regions[0]! : null);
  if (region === null) {
    return {
      ok: false,
      status: 400,
      code: "region_required",
      message: `${target.operation} routes in several regions (${regions.join(", ")}): name one as model "${target.operation}@<region>" or in the x-switchyard-region header`,
      param: "model",
    };
  }
  return { ok: true, operation: target.operation, region };
}

/** GET /models: each LLM operation, each as OPERATION@REGION, and the aliases that point at one. */
export function listModels(ctx: Pick<TGatewayContext, "state" | "config">, aliases: ReadonlyMap<string, TModelTarget>): TModelEntry[] {
  const out: TModelEntry[] = [];
  const chat = chatOperations(ctx);
  for (const operation of chat) {
    out.push({ id: operation, operation, region: null, alias: false });
    for (const region of ctx.state.knownRegions(operation)) out.push({ id: `${operation}@${region}`, operation, region, alias: false });
  }
  for (const [id, t] of aliases) if (chat.includes(t.operation)) out.push({ id, operation: t.operation, region: t.region, alias: true });
  return out;
}

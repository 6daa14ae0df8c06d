import type pg from "pg";
import { z } from "zod";
import { anthropicMessagesAdapter } from "./adapters/anthropic-messages";
import { geminiGenerateAdapter } from "./adapters/gemini-generate";
import { httpJsonAdapter, ZHttpJsonOptions } from "./adapters/http-json";
import { openAiChatAdapter } from "./adapters/openai-chat";
import { CREDENTIAL_REF_PATTERN } from "./credentials";
import type { TAdapter, TAdapterKind } from "./types";

export const ADAPTER_KINDS = ["http_json", "openai_chat", "anthropic_messages", "gemini_generate"] as const satisfies readonly TAdapterKind[];

/** One provider_adapter row as operators write it (console, SQL or the seed). */
export const ZProviderAdapterRow = z
  .object({
    provider_key: z.string().min(1),
    kind: z.enum(ADAPTER_KINDS, { error: (i) => `kind must be one of ${ADAPTER_KINDS.join(", ")}, got ${JSON.stringify(i.input)}` }),
    base_url: z.string().refine((u) => /^https?:\/\/[^/]/.test(u), { message: "base_url must be an http(s) URL" }),
    model: z.string().min(1).nullable(),
    context_window: z.number().int().positive().nullable(),
    input_price_per_1k: z.number().min(0).nullable(),
    output_price_per_1k: z.number().min(0).nullable(),
    credential_ref: z.string().regex(CREDENTIAL_REF_PATTERN, "credential_ref must be a reference (env:NAME or file:/path), never the secret itself").nullable(),
    timeout_ms: z.number().int().min(1).max(600_000),
    options: z.unknown(),
  })
  .superRefine((r, ctx) => {
    if (r.kind !== "http_json" && !r.model) ctx.addIssue({ code: "custom", path: ["model"], message: `model is required for ${r.kind}` });
  });

/** What the request path needs per provider: built once per reload, never re-parsed per request. */
export type TProviderAdapterConfig = {
  provider: string;
  kind: TAdapterKind;
  adapter: TAdapter;
  model: string | null;
  contextWindow: number | null;
  inputPricePer1k: number | null;
  outputPricePer1k: number | null;
  credentialRef: string | null;
  timeoutMs: number;
};

/** Execute-mode limits of one operation (gateway_operation, or these defaults without a row). */
export type TOperationLimits = {
  deadlineMs: number;
  maxAttempts: number;
  retryBudgetRatio: number;
  retryBudgetMinPerSecond: number;
  costCapPerMinute: number | null;
  costCapPerDay: number | null;
  maxFallbackSeconds: number | null;
  cacheTtlSeconds: number | null;
  idempotencyWindowSeconds: number;
};

export const DEFAULT_OPERATION_LIMITS: Readonly<TOperationLimits> = Object.freeze({
  deadlineMs: 30_000,
  maxAttempts: 3,
  retryBudgetRatio: 0.2,
  retryBudgetMinPerSecond: 3,
  costCapPerMinute: null,
  costCapPerDay: null,
  maxFallbackSeconds: null,
  cacheTtlSeconds: null,
  idempotencyWindowSeconds: 300,
});

export type TGatewayConfig = {
  adapters: ReadonlyMap<string, TProviderAdapterConfig>;
  limits: ReadonlyMap<string, TOperationLimits>;
  errors: Array<{ provider: string; message: string }>;
};

export function buildAdapter(row: z.output<typeof ZProviderAdapterRow>): TAdapter {
  const model = row.model ?? "";
  switch (row.kind) {
    case "openai_chat":
      return openAiChatAdapter({ baseUrl: row.base_url, model });
    case "anthropic_messages":
      return anthropicMessagesAdapter({ baseUrl: row.base_url, model });
    case "gemini_generate":
      return geminiGenerateAdapter({ baseUrl: row.base_url, model });
    case "http_json":
      return httpJsonAdapter({ baseUrl: row.base_url, options: ZHttpJsonOptions.parse(row.options ?? {}) });
  }
}

function describe(err: unknown): string {
  if (err instanceof z.ZodError) return err.issues.map((i) => `${i.path.join(".") || "(row)"}: ${i.message}`).join("; ");
  return (err as Error).message;
}

/** Reads both tables with the request path's pool; a row that does not validate is reported and skipped. */
export async function loadGatewayConfig(pool: pg.Pool): Promise<TGatewayConfig> {
  const [adapterRows, limitRows] = await Promise.all([
    pool.query(
      `select provider_key, kind, base_url, model, context_window, input_price_per_1k, output_price_per_1k, credential_ref, timeout_ms, options
       from provider_adapter order by provider_key`,
    ),
    pool.query(
      `select operation_key, deadline_ms, max_attempts, retry_budget_ratio, retry_budget_min_per_second, cost_cap_per_minute,
              cost_cap_per_day, max_fallback_seconds, cache_ttl_seconds, idempotency_window_seconds
       from gateway_operation`,
    ),
  ]);
  const adapters = new Map<string, TProviderAdapterConfig>();
  const errors: TGatewayConfig["errors"] = [];
  for (const raw of adapterRows.rows as Array<Record<string, unknown>>) {
    try {
      const row = ZProviderAdapterRow.parse(raw);
      adapters.set(row.provider_key, {
        provider: row.provider_key,
        kind: row.kind,
        adapter: buildAdapter(row),
        model: row.model,
        contextWindow: row.context_window,
        inputPricePer1k: row.input_price_per_1k,
        outputPricePer1k: row.output_price_per_1k,
        credentialRef: row.credential_ref,
        timeoutMs: row.timeout_ms,
      });
    } catch (err) {
      errors.push({ provider: String(raw.provider_key), message: describe(err) });
    }
  }
  const limits = new Map<string, TOperationLimits>();
  for (const r of limitRows.rows as Array<Record<string, number | string | null>>) {
    limits.set(String(r.operation_key), {
      deadlineMs: Number(r.deadline_ms),
      maxAttempts: Math.max(1, Number(r.max_attempts)),
      retryBudgetRatio: Number(r.retry_budget_ratio),
      retryBudgetMinPerSecond: Number(r.retry_budget_min_per_second),
      costCapPerMinute: r.cost_cap_per_minute === null ? null : Number(r.cost_cap_per_minute),
      costCapPerDay: r.cost_cap_per_day === null ? null : Number(r.cost_cap_per_day),
      maxFallbackSeconds: r.max_fallback_seconds === null ? null : Number(r.max_fallback_seconds),
      cacheTtlSeconds: r.cache_ttl_seconds === null ? null : Number(r.cache_ttl_seconds),
      idempotencyWindowSeconds: Number(r.idempotency_window_seconds),
    });
  }
  return { adapters, limits, errors };
}

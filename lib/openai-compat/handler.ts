import type { ServerResponse } from "node:http";
import { z } from "zod";
import { authenticateRequest, operationDenied, ContractError, sendJson, registerEndpoint, type TRoute, type TRouteHandler } from "../edge";
import { type TGatewayContext, createSseParser } from "../gateway";
import { CapturedResponse, executeRequest } from "./bridge";
import { listModels, parseModelAliases, resolveModel, type TModelTarget } from "./models";
import { readOpenAiRequest, refuseOpenAi } from "./read-request";
import { responsesHandler } from "./responses-handler";
import {
  chunk,
  finishReason,
  openAiError,
  toCompletion,
  toExecuteBody,
  toOpenAiError,
  unsupportedParam,
  usageOf,
  ZChatCompletionRequest,
  type TOpenAiError,
} from "./translate";

export const OPENAI_PREFIX = "/api/v1/openai";
const EXECUTE_PATH = "/api/v1/execute/:operation";

const ZOpenAiErrorBody = z.object({
  error: z.object({ message: z.string(), type: z.string(), param: z.string().nullable(), code: z.string().nullable() }),
});

registerEndpoint({
  method: "post",
  path: `${OPENAI_PREFIX}/chat/completions`,
  summary: "OpenAI-compatible chat completions over execute mode",
  description:
    "Point the official openai client at baseURL /api/v1/openai. `model` names an LLM operation, OPERATION@REGION or an alias " +
    "(SWITCHYARD_OPENAI_MODELS); `metadata` becomes the routing attributes. Runs exactly as POST /api/v1/execute/{operation}: " +
    "failover, budgets, Idempotency-Key and the decision log. Answers chat.completion, or chat.completion.chunk events ending " +
    "`data: [DONE]` with stream: true. Headers x-switchyard-decision-id and x-switchyard-provider. Errors in OpenAI's shape.",
  tags: ["openai"],
  request: ZChatCompletionRequest,
  responses: {
    200: { description: "chat.completion, or an event stream of chat.completion.chunk" },
    400: { description: "Invalid or unsupported parameter (param names it)", schema: ZOpenAiErrorBody },
    401: { description: "Missing or invalid API key", schema: ZOpenAiErrorBody },
    404: { description: "Unknown model", schema: ZOpenAiErrorBody },
    429: { description: "Rate limited (Retry-After)", schema: ZOpenAiErrorBody },
    503: { description: "Every provider failed, or nothing eligible (Retry-After)", schema: ZOpenAiErrorBody },
  },
});
registerEndpoint({
  method: "get",
  path: `${OPENAI_PREFIX}/models`,
  summary: "Models usable with the OpenAI-compatible endpoint: LLM operations, OPERATION@REGION and aliases",
  tags: ["openai"],
  responses: {
    200: { description: "{object: list, data: [{id, object: model, created, owned_by}]}" },
    401: { description: "Missing or invalid API key", schema: ZOpenAiErrorBody },
  },
});
registerEndpoint({
  method: "get",
  path: `${OPENAI_PREFIX}/models/{model}`,
  summary: "One model of GET /models",
  tags: ["openai"],
  pathParams: { model: { description: "Model id, e.g. LLM_CHAT@EU" } },
  responses: { 200: { description: "{id, object: model, created, owned_by}" }, 404: { description: "Unknown model", schema: ZOpenAiErrorBody } },
});

/** Headers of execute's answer the caller still gets. */
const PASSED_HEADERS = ["retry-after", "www-authenticate", "x-decision-durability", "idempotent-replayed", "x-switchyard-cache"];

function passHeaders(from: Record<string, string>, extra: Record<string, string | undefined>): Record<string, string> {
  const out: Record<string, string> = {};
  for (const h of PASSED_HEADERS) if (from[h] !== undefined) out[h] = from[h];
  for (const [k, v] of Object.entries(extra)) if (v) out[k] = v;
  return out;
}

function sendOpenAiError(res: ServerResponse, status: number, body: TOpenAiError, headers: Record<string, string> = {}): void {
  sendJson(res, status, body, headers);
}

type TGatewayLike = { routes: readonly TRoute[]; context: Pick<TGatewayContext, "state" | "config"> };

export type TOpenAiCompatOptions = {
  gateway: TGatewayLike;
  env?: Readonly<Record<string, string | undefined>>;
  now?: () => number;
};

/**
 * The OpenAI-compatible surface (lib/openai-compat/README.md): routes under /api/v1/openai on
 * the data-plane fast path. Chat completions are translated to execute requests and handed to
 * execute's own handler; its answers are translated back.
 */
export function createOpenAiCompatRoutes(opts: TOpenAiCompatOptions): TRoute[] {
  const aliases = parseModelAliases((opts.env ?? process.env).SWITCHYARD_OPENAI_MODELS);
  const now = opts.now ?? Date.now;
  const execute = opts.gateway.routes.find((r) => r.method === "POST" && r.path === EXECUTE_PATH)?.handler;
  if (!execute) throw new Error(`openai-compat: the gateway has no ${EXECUTE_PATH} route`);
  const ctx = opts.gateway.context;
  return [
    { method: "POST", path: `${OPENAI_PREFIX}/chat/completions`, handler: chatHandler(ctx, aliases, execute, now) },
    { method: "POST", path: `${OPENAI_PREFIX}/responses`, handler: responsesHandler(ctx, aliases, execute, now) },
    { method: "GET", path: `${OPENAI_PREFIX}/models`, handler: modelsHandler(ctx, aliases, now, null) },
    { method: "GET", path: `${OPENAI_PREFIX}/models/:model`, handler: modelsHandler(ctx, aliases, now, "model") },
  ];
}

function modelsHandler(ctx: TGatewayLike["context"], aliases: ReadonlyMap<string, TModelTarget>, now: () => number, param: "model" | null): TRouteHandler {
  return async (req, res, params) => {
    const auth = await authenticateRequest(req, "decide");
    if (!auth.ok) {
      sendOpenAiError(res, auth.status, toOpenAiError(auth.status, auth.body), auth.headers);
      return;
    }
    const created = Math.floor(now() / 1000);
    const models = listModels(ctx, aliases)
      .filter((m) => operationDenied(auth.principal, m.operation) === null)
      .map((m) => ({
        id: m.id,
        object: "model" as const,
        created,
        owned_by: "switchyard",
        switchyard: { operation: m.operation, region: m.region, alias: m.alias },
      }));
    if (param === null) {
      sendJson(res, 200, { object: "list", data: models });
      return;
    }
    const one = models.find((m) => m.id === params[param]);
    if (one) sendJson(res, 200, one);
    else sendOpenAiError(res, 404, openAiError(404, "model_not_found", `The model \`${params[param]}\` does not exist`, "model"));
  };
}

function chatHandler(ctx: TGatewayLike["context"], aliases: ReadonlyMap<string, TModelTarget>, execute: TRouteHandler, now: () => number): TRouteHandler {
  return async (req, res) => {
    const created = Math.floor(now() / 1000);
    const request = await readOpenAiRequest(req, res, ZChatCompletionRequest, unsupportedParam);
    if (request === null) return;
    const regionHeader = req.headers["x-switchyard-region"];
    const target = resolveModel(ctx, aliases, request.model, Array.isArray(regionHeader) ? regionHeader[0] : regionHeader);
    if (!target.ok) return refuseOpenAi(req, res, target.status, openAiError(target.status, target.code, target.message, target.param));
    const requestIdHeader = req.headers["x-switchyard-request-id"];
    const built = toExecuteBody(request, target.region, Array.isArray(requestIdHeader) ? requestIdHeader[0] : requestIdHeader);
    if (!built.ok) return refuseOpenAi(req, res, 400, openAiError(400, "unsupported_parameter", built.error.message, built.error.param));

    const stream = request.stream === true ? streamTranslator(res, request.model, created, request.stream_options?.include_usage === true) : null;
    const captured = new CapturedResponse(stream ?? { streamStart() {}, streamData() {}, streamEnd() {} });
    res.on("close", () => captured.clientGone());
    try {
      await execute(executeRequest(target.operation, built.body, req.headers), captured.asServerResponse(), { operation: target.operation });
    } catch (err) {
      if (captured.headersSent || res.headersSent) {
        res.destroy();
        return;
      }
      if (err instanceof ContractError) {
        sendOpenAiError(res, err.status, toOpenAiError(err.status, err.toBody()));
        return;
      }
      throw err;
    }
    if (captured.isStream) return;
    answerJson(res, request.model, created, captured);
  };
}

// eslint-disable-next-line @typescript-eslint/no-explicit-any -- execute's answer, read field by field
type TJson = any;

function answerJson(res: ServerResponse, model: string, created: number, captured: CapturedResponse): void {
  const status = captured.statusCode;
  let body: TJson = null;
  try {
    body = JSON.parse(captured.body());
  } catch {
    body = null;
  }
  const decisionId: string | undefined = captured.headers["x-switchyard-decision-id"] ?? (typeof body?.decisionId === "string" ? body.decisionId : undefined);
  const provider: string | undefined = typeof body?.provider === "string" ? body.provider : undefined;
  const headers = passHeaders(captured.headers, { "x-switchyard-decision-id": decisionId, "x-switchyard-provider": provider, "x-request-id": decisionId });
  if (status === 200 && body?.result) {
    sendJson(res, 200, toCompletion(model, created, body), headers);
    return;
  }
  const errStatus = status >= 400 ? status : 502;
  sendOpenAiError(res, errStatus, toOpenAiError(errStatus, body), headers);
}

/** Execute's events (start, delta…, done | error) as chat.completion.chunk events ending `data: [DONE]`. */
function streamTranslator(res: ServerResponse, model: string, created: number, includeUsage: boolean) {
  let id = "chatcmpl";
  const write = (obj: unknown) => res.write(`data: ${JSON.stringify(obj)}\n\n`);
  const parser = createSseParser((name, data) => {
    let ev: TJson;
    try {
      ev = JSON.parse(data);
    } catch {
      return;
    }
    if (name === "start") {
      id = `chatcmpl-${ev.decisionId}`;
      write(chunk(id, model, created, { role: "assistant", content: "" }, null));
    } else if (name === "delta") {
      write(chunk(id, model, created, { content: ev.text }, null));
    } else if (name === "done") {
      write(chunk(id, model, created, {}, finishReason(ev.finishReason)));
      if (includeUsage) write(chunk(id, model, created, null, null, usageOf(ev.usage)));
      res.write("data: [DONE]\n\n");
    } else if (name === "error") {
      // The openai client raises an APIError for an event whose data carries `error`.
      write({ error: { message: ev.message ?? "the stream failed", type: "server_error", param: null, code: ev.code ?? "stream_interrupted" } });
    }
  });
  return {
    streamStart(_status: number, headers: Record<string, string>) {
      const decisionId = headers["x-switchyard-decision-id"];
      res.writeHead(200, {
        "content-type": "text/event-stream; charset=utf-8",
        "cache-control": "no-store",
        connection: "keep-alive",
        "x-accel-buffering": "no",
        ...(decisionId ? { "x-switchyard-decision-id": decisionId, "x-request-id": decisionId } : {}),
        ...(headers["x-switchyard-provider"] ? { "x-switchyard-provider": headers["x-switchyard-provider"] } : {}),
      });
    },
    streamData(text: string) {
      parser.push(text);
    },
    streamEnd() {
      parser.end();
      res.end();
    },
  };
}

import type { IncomingMessage, ServerResponse } from "node:http";
import { z } from "zod";
import { ContractError, readJsonBody, sendJson, registerEndpoint, type TRoute, type TRouteHandler } from "../edge";
import type { TGatewayContext } from "../gateway";
import { parseModelAliases, resolveModel, type TModelTarget, answerHeaders, executeEventSink, header, refuseAuthenticated, runExecute } from "../openai-compat";
import { anthropicError, toAnthropicError, toExecuteBody, toMessage, unsupportedField, ZMessagesRequest, type TAnthropicError } from "./translate";
import { anthropicStreamWriter } from "./stream";

export const ANTHROPIC_PREFIX = "/api/v1/anthropic";
const MAX_BODY_BYTES = 8 * 1024 * 1024;
const EXECUTE_PATH = "/api/v1/execute/:operation";

const ZAnthropicErrorBody = z.object({ type: z.literal("error"), error: z.object({ type: z.string(), message: z.string() }) });

registerEndpoint({
  method: "post",
  path: `${ANTHROPIC_PREFIX}/v1/messages`,
  summary: "Anthropic-compatible Messages API over execute mode",
  description:
    "Point the official Anthropic client at baseURL /api/v1/anthropic (the data-plane key as apiKey: x-api-key or Authorization: Bearer). " +
    "`model` names an LLM operation, OPERATION@REGION or an alias (SWITCHYARD_OPENAI_MODELS). Runs exactly as POST /api/v1/execute/{operation}: " +
    "failover, budgets, Idempotency-Key and the decision log. Answers a message, or with stream: true Anthropic's events (message_start … message_stop). " +
    "Text only: tools and non-text blocks are refused. Errors in Anthropic's shape.",
  tags: ["anthropic"],
  request: ZMessagesRequest,
  responses: {
    200: { description: "message, or an event stream of message_start, content_block_*, message_delta, message_stop, ping" },
    400: { description: "Invalid or unsupported field (the message names it)", schema: ZAnthropicErrorBody },
    401: { description: "Missing or invalid API key", schema: ZAnthropicErrorBody },
    404: { description: "Unknown model", schema: ZAnthropicErrorBody },
    429: { description: "Rate limited (Retry-After)", schema: ZAnthropicErrorBody },
    503: { description: "Every provider failed, or nothing eligible (Retry-After)", schema: ZAnthropicErrorBody },
  },
});

type TGatewayLike = { routes: readonly TRoute[]; context: Pick<TGatewayContext, "state" | "config"> };

export type TAnthropicCompatOptions = { gateway: TGatewayLike; env?: Readonly<Record<string, string | undefined>> };

/**
 * The Anthropic-compatible surface (lib/anthropic-compat/README.md): POST
 * /api/v1/anthropic/v1/messages on the data-plane fast path, translated to an execute request and
 * handed to execute's own handler, as the OpenAI surface does.
 */
export function createAnthropicCompatRoutes(opts: TAnthropicCompatOptions): TRoute[] {
  const aliases = parseModelAliases((opts.env ?? process.env).SWITCHYARD_OPENAI_MODELS);
  const execute = opts.gateway.routes.find((r) => r.method === "POST" && r.path === EXECUTE_PATH)?.handler;
  if (!execute) throw new Error(`anthropic-compat: the gateway has no ${EXECUTE_PATH} route`);
  return [{ method: "POST", path: `${ANTHROPIC_PREFIX}/v1/messages`, handler: messagesHandler(opts.gateway.context, aliases, execute) }];
}

/** The Anthropic SDK sends its key as x-api-key; execute (and auth) read Authorization: Bearer. */
function adoptApiKey(req: IncomingMessage): void {
  const key = header(req, "x-api-key");
  if (key && !req.headers.authorization) req.headers.authorization = `Bearer ${key}`;
}

function refuse(req: IncomingMessage, res: ServerResponse, status: number, body: TAnthropicError): Promise<void> {
  return refuseAuthenticated(req, res, status, body, toAnthropicError);
}

function messagesHandler(ctx: TGatewayLike["context"], aliases: ReadonlyMap<string, TModelTarget>, execute: TRouteHandler): TRouteHandler {
  return async (req, res) => {
    adoptApiKey(req);
    let raw: unknown;
    try {
      raw = await readJsonBody(req, MAX_BODY_BYTES);
    } catch (err) {
      if (!(err instanceof ContractError)) throw err;
      return refuse(req, res, err.status, toAnthropicError(err.status, err.toBody()));
    }
    const parsed = ZMessagesRequest.safeParse(raw);
    if (!parsed.success) {
      const issue = parsed.error.issues[0]!;
      const field = issue.path.map(String).join(".");
      return refuse(req, res, 400, anthropicError(400, `${field ? `${field}: ` : ""}${issue.message}`));
    }
    const request = parsed.data;
    const unsupported = unsupportedField(raw as Record<string, unknown>);
    if (unsupported) return refuse(req, res, 400, anthropicError(400, unsupported.message));
    const target = resolveModel(ctx, aliases, request.model, header(req, "x-switchyard-region"));
    if (!target.ok) return refuse(req, res, target.status, anthropicError(target.status, target.message));
    const built = toExecuteBody(request, target.region, header(req, "x-switchyard-request-id"));
    if (!built.ok) return refuse(req, res, 400, anthropicError(400, built.error.message));

    const sink = request.stream === true ? executeEventSink(res, anthropicStreamWriter(res, request.model)) : null;
    const answer = await runExecute(execute, req, res, target.operation, built.body, sink);
    if (answer === null) return;
    const headers = answerHeaders(answer);
    if (answer.status === 200 && answer.body?.result) {
      sendJson(res, 200, toMessage(request.model, answer.body), headers);
      return;
    }
    const status = answer.status >= 400 ? answer.status : 502;
    sendJson(res, status, toAnthropicError(status, answer.body), headers);
  };
}

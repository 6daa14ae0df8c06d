import { sendJson, registerEndpoint, type TRouteHandler } from "../edge";
import type { TGatewayContext } from "../gateway";
import { resolveModel, type TModelTarget } from "./models";
import { responseObject, toResponsesExecuteBody, unsupportedResponsesParam, ZResponsesRequest } from "./responses-translate";
import { responsesStreamWriter } from "./responses-stream";
import { readOpenAiRequest, refuseOpenAi } from "./read-request";
import { answerHeaders, executeEventSink, header, runExecute } from "./run-execute";
import { openAiError, toOpenAiError } from "./translate";

registerEndpoint({
  method: "post",
  path: "/api/v1/openai/responses",
  summary: "OpenAI-compatible Responses API (text in, text out) over execute mode",
  description:
    "openai.responses.create with baseURL /api/v1/openai. `input` is a string or text message items, `instructions` the system prompt; " +
    "answers a response object, or with stream: true the Responses events (response.created … response.output_text.delta … response.completed). " +
    "Tools, previous_response_id, conversation, reasoning, background and non-text parts are refused (param names them). Errors in OpenAI's shape.",
  tags: ["openai"],
  request: ZResponsesRequest,
  responses: {
    200: { description: "response, or an event stream of Responses events" },
    400: { description: "Invalid or unsupported parameter (param names it)" },
    401: { description: "Missing or invalid API key" },
    404: { description: "Unknown model" },
    429: { description: "Rate limited (Retry-After)" },
    503: { description: "Every provider failed, or nothing eligible (Retry-After)" },
  },
});

type TContext = Pick<TGatewayContext, "state" | "config">;

/** POST /api/v1/openai/responses (README.md, Responses): translated to an execute request, answered as a response or its events. */
export function responsesHandler(ctx: TContext, aliases: ReadonlyMap<string, TModelTarget>, execute: TRouteHandler, now: () => number): TRouteHandler {
  return async (req, res) => {
    const createdAt = Math.floor(now() / 1000);
    const request = await readOpenAiRequest(req, res, ZResponsesRequest, unsupportedResponsesParam);
    if (request === null) return;
    const target = resolveModel(ctx, aliases, request.model, header(req, "x-switchyard-region"));
    if (!target.ok) return refuseOpenAi(req, res, target.status, openAiError(target.status, target.code, target.message, target.param));
    const built = toResponsesExecuteBody(request, target.region, header(req, "x-switchyard-request-id"));
    if (!built.ok) return refuseOpenAi(req, res, 400, openAiError(400, "unsupported_parameter", built.error.message, built.error.param));

    const fields = { model: request.model, createdAt, request };
    const sink = request.stream === true ? executeEventSink(res, responsesStreamWriter(res, fields)) : null;
    const answer = await runExecute(execute, req, res, target.operation, built.body, sink);
    if (answer === null) return;
    const headers = answerHeaders(answer);
    const b = answer.body;
    if (answer.status === 200 && b?.result) {
      const extra = {
        decisionId: b.decisionId,
        provider: b.provider,
        providerModel: b.result.model ?? null,
        attempts: b.attempts ?? [],
        costEstimate: b.costEstimate ?? null,
      };
      const done = { text: b.result.text ?? "", finishReason: b.result.finishReason, usage: b.result.usage, extra };
      sendJson(res, 200, responseObject(fields, b.decisionId, done), headers);
      return;
    }
    const status = answer.status >= 400 ? answer.status : 502;
    sendJson(res, status, toOpenAiError(status, b), headers);
  };
}

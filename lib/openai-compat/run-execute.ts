import type { IncomingMessage, ServerResponse } from "node:http";
import { authenticateRequest, ContractError, sendJson, type TRouteHandler } from "../edge";
import { createSseParser } from "../gateway";
import { CapturedResponse, executeRequest, type TCaptureSink } from "./bridge";

// eslint-disable-next-line @typescript-eslint/no-explicit-any -- execute's answers, read field by field
export type TJson = any;

/** A Switchyard error answer (status and body in docs/errors.md's shape) in a surface's own error shape. */
export type TErrorShaper = (status: number, body: unknown) => unknown;

/** Execute's JSON answer, for the surface to translate; or null when it was streamed (or the caller left). */
export type TExecuteAnswer = { status: number; body: TJson; headers: Record<string, string> } | null;

/** Headers of execute's answer the caller still gets, whatever the surface. */
const PASSED_HEADERS = ["retry-after", "www-authenticate", "x-decision-durability", "idempotent-replayed", "x-switchyard-cache"];

/** The caller's headers for a JSON answer: execute's passed ones, the decision id (also as x-request-id) and the provider. */
export function answerHeaders(answer: NonNullable<TExecuteAnswer>): Record<string, string> {
  const out: Record<string, string> = {};
  for (const h of PASSED_HEADERS) if (answer.headers[h] !== undefined) out[h] = answer.headers[h];
  const decisionId = answer.headers["x-switchyard-decision-id"] ?? (typeof answer.body?.decisionId === "string" ? answer.body.decisionId : undefined);
  if (decisionId) {
    out["x-switchyard-decision-id"] = decisionId;
    out["x-request-id"] = decisionId;
  }
  if (typeof answer.body?.provider === "string") out["x-switchyard-provider"] = answer.body.provider;
  return out;
}

/** Refusals decided by a surface are authenticated first, so an unauthenticated caller learns nothing but 401. */
export async function refuseAuthenticated(req: IncomingMessage, res: ServerResponse, status: number, body: unknown, shape: TErrorShaper): Promise<void> {
  const auth = await authenticateRequest(req, "decide");
  if (!auth.ok) {
    sendJson(res, auth.status, shape(auth.status, auth.body), auth.headers);
    return;
  }
  sendJson(res, status, body);
}

/**
 * Hands an execute request to execute's own handler in process (bridge.ts) and collects its
 * answer: a stream goes to `sink` as it comes (null returned), a JSON answer is returned whole.
 */
export async function runExecute(
  execute: TRouteHandler,
  req: IncomingMessage,
  res: ServerResponse,
  operation: string,
  body: unknown,
  sink: TCaptureSink | null,
): Promise<TExecuteAnswer> {
  const captured = new CapturedResponse(sink ?? { streamStart() {}, streamData() {}, streamEnd() {} });
  res.on("close", () => captured.clientGone());
  try {
    await execute(executeRequest(operation, body, req.headers), captured.asServerResponse(), { operation });
  } catch (err) {
    if (captured.headersSent || res.headersSent) {
      res.destroy();
      return null;
    }
    if (err instanceof ContractError) return { status: err.status, body: err.toBody(), headers: {} };
    throw err;
  }
  if (captured.isStream) return null;
  let parsed: TJson = null;
  try {
    parsed = JSON.parse(captured.body());
  } catch {
    parsed = null;
  }
  return { status: captured.statusCode, body: parsed, headers: captured.headers };
}

/**
 * A sink that opens the caller's event stream when execute opens its own, and hands each of
 * execute's events (`start`, `delta`, `done`, `error`) to `onEvent` as parsed JSON.
 */
export function executeEventSink(res: ServerResponse, onEvent: (name: string, data: TJson) => void): TCaptureSink {
  const parser = createSseParser((name, data) => {
    let ev: TJson;
    try {
      ev = JSON.parse(data);
    } catch {
      return;
    }
    if (name) onEvent(name, ev);
  });
  return {
    streamStart(_status, headers) {
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
    streamData(text) {
      parser.push(text);
    },
    streamEnd() {
      parser.end();
      res.end();
    },
  };
}

/** Reads one header's first value. */
export function header(req: IncomingMessage, name: string): string | undefined {
  const v = req.headers[name];
  return Array.isArray(v) ? v[0] : v;
}

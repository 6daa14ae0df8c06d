import type { IncomingMessage, ServerResponse } from "node:http";
import type { z } from "zod";
import { ContractError, readJsonBody } from "../edge";
import { refuseAuthenticated } from "./run-execute";
import { openAiError, toOpenAiError, type TOpenAiError, type TParamError } from "./translate";

const MAX_BODY_BYTES = 8 * 1024 * 1024;

/** Refusals decided by the OpenAI surface are authenticated first, so an unauthenticated caller learns nothing but 401. */
export function refuseOpenAi(req: IncomingMessage, res: ServerResponse, status: number, body: TOpenAiError): Promise<void> {
  return refuseAuthenticated(req, res, status, body, toOpenAiError);
}

/**
 * Reads an OpenAI-shaped request body and validates it: the schema first, then the parameters this
 * surface does not support, each refusal in OpenAI's shape with `param` naming the field. Answers
 * the refusal itself and returns null when the request cannot be used.
 */
export async function readOpenAiRequest<S extends z.ZodType>(
  req: IncomingMessage,
  res: ServerResponse,
  schema: S,
  unsupported: (raw: Record<string, unknown>) => TParamError | null,
): Promise<z.output<S> | null> {
  let raw: unknown;
  try {
    raw = await readJsonBody(req, MAX_BODY_BYTES);
  } catch (err) {
    if (!(err instanceof ContractError)) throw err;
    await refuseOpenAi(req, res, err.status, toOpenAiError(err.status, err.toBody()));
    return null;
  }
  const parsed = schema.safeParse(raw);
  if (!parsed.success) {
    const issue = parsed.error.issues[0]!;
    const param = issue.path.map(String).join(".") || null;
    await refuseOpenAi(req, res, 400, openAiError(400, "invalid_request", `${param ? `${param}: ` : ""}${issue.message}`, param));
    return null;
  }
  const refused = unsupported(raw as Record<string, unknown>);
  if (refused) {
    await refuseOpenAi(req, res, 400, openAiError(400, "unsupported_parameter", refused.message, refused.param));
    return null;
  }
  return parsed.data;
}

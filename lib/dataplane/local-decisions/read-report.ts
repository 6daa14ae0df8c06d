import type { IncomingMessage, ServerResponse } from "node:http";
import type { z } from "zod";
import { authenticateRequest, fromZod, readJsonBody, sendJson, type TAuthResult } from "../../edge";

/**
 * A client's report of its local decisions: authenticated with the decide scope (they are
 * decisions it made for that key's owner), then its body read within `maxBytes` and checked.
 * Null when the key was refused and the refusal is sent; a malformed body throws the 400.
 */
export async function readReport<S extends z.ZodType>(
  req: IncomingMessage,
  res: ServerResponse,
  schema: S,
  maxBytes: number,
): Promise<{ auth: Extract<TAuthResult, { ok: true }>; data: z.output<S> } | null> {
  const auth = await authenticateRequest(req, "decide");
  if (!auth.ok) {
    sendJson(res, auth.status, auth.body, auth.headers);
    return null;
  }
  const parsed = schema.safeParse(await readJsonBody(req, maxBytes));
  if (!parsed.success) throw fromZod(parsed.error);
  return { auth, data: parsed.data };
}

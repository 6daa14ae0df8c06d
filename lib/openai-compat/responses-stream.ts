import type { ServerResponse } from "node:http";
import { outputMessage, responseObject, type TResponseFields } from "./responses-translate";
import type { TJson } from "./run-execute";

/**
 * Execute's events (start, delta…, done | error) as the Responses API's: when output begins
 * response.created, response.in_progress, response.output_item.added and
 * response.content_part.added; response.output_text.delta per piece of text; at the end
 * response.output_text.done, response.content_part.done, response.output_item.done and
 * response.completed (response.incomplete when the answer was cut short). Each carries
 * `sequence_number`. A failure after output began is an `error` event, which the openai client
 * raises as an APIError.
 */
export function responsesStreamWriter(res: ServerResponse, f: TResponseFields): (name: string, ev: TJson) => void {
  let seq = 0;
  let decisionId = "";
  let text = "";
  const send = (type: string, data: Record<string, unknown>) =>
    res.write(`event: ${type}\ndata: ${JSON.stringify({ type, sequence_number: seq++, ...data })}\n\n`);
  const at = () => ({ item_id: `msg_${decisionId}`, output_index: 0, content_index: 0 });
  return (name, ev) => {
    if (name === "start") {
      decisionId = String(ev.decisionId);
      send("response.created", { response: responseObject(f, decisionId, null) });
      send("response.in_progress", { response: responseObject(f, decisionId, null) });
      send("response.output_item.added", { output_index: 0, item: outputMessage(decisionId, "", "in_progress") });
      send("response.content_part.added", { ...at(), part: { type: "output_text", text: "", annotations: [], logprobs: [] } });
    } else if (name === "delta") {
      text += ev.text;
      send("response.output_text.delta", { ...at(), delta: ev.text, logprobs: [] });
    } else if (name === "done") {
      const response = responseObject(f, decisionId, {
        text,
        finishReason: ev.finishReason,
        usage: ev.usage,
        extra: { decisionId, provider: ev.provider, providerModel: ev.model ?? null, attempts: ev.attempts ?? [], costEstimate: ev.costEstimate ?? null },
      });
      send("response.output_text.done", { ...at(), text, logprobs: [] });
      send("response.content_part.done", { ...at(), part: { type: "output_text", text, annotations: [], logprobs: [] } });
      send("response.output_item.done", { output_index: 0, item: response.output[0] });
      send(response.status === "incomplete" ? "response.incomplete" : "response.completed", { response });
    } else if (name === "error") {
      send("error", { code: ev.code ?? "stream_interrupted", message: ev.message ?? "the stream failed", param: null });
    }
  };
}

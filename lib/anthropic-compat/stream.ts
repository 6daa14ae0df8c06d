import type { ServerResponse } from "node:http";
import type { TJson } from "../openai-compat";
import { stopReason, usageOf } from "./translate";

/**
 * Execute's events (start, delta…, done | error) as Anthropic's: message_start,
 * content_block_start and a ping when output begins, content_block_delta per piece of text, then
 * content_block_stop, message_delta (stop reason, usage) and message_stop; or an `error` event,
 * which the Anthropic client raises as an APIError, when the stream fails after output began.
 */
export function anthropicStreamWriter(res: ServerResponse, model: string): (name: string, ev: TJson) => void {
  const send = (type: string, data: Record<string, unknown> = {}) => res.write(`event: ${type}\ndata: ${JSON.stringify({ type, ...data })}\n\n`);
  return (name, ev) => {
    if (name === "start") {
      send("message_start", {
        message: {
          id: `msg_${ev.decisionId}`,
          type: "message",
          role: "assistant",
          model,
          content: [],
          stop_reason: null,
          stop_sequence: null,
          usage: { input_tokens: 0, output_tokens: 0 },
        },
      });
      send("content_block_start", { index: 0, content_block: { type: "text", text: "" } });
      send("ping");
    } else if (name === "delta") {
      send("content_block_delta", { index: 0, delta: { type: "text_delta", text: ev.text } });
    } else if (name === "done") {
      send("content_block_stop", { index: 0 });
      // Input tokens are known only now (execute's `done`); the client takes them from message_delta's cumulative usage.
      send("message_delta", { delta: { stop_reason: stopReason(ev.finishReason), stop_sequence: null }, usage: usageOf(ev.usage) });
      send("message_stop");
    } else if (name === "error") {
      send("error", { error: { type: "api_error", message: `${ev.message ?? "the stream failed"} (${ev.code ?? "stream_interrupted"})` } });
    }
  };
}

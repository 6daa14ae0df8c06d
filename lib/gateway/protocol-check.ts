import type { IncomingHttpHeaders } from "node:http";
import { AttemptError } from "./types";

/**
 * A 2xx answer in the wrong protocol: JSON (or HTML, or anything else) to a stream request, an
 * HTML page to a chat call. It is not a network failure (a connection was made and answered) nor
 * a malformed body of the right kind: the provider, or more often Switchyard's configuration of
 * it (a base URL that is not the API, an endpoint that does not stream), speaks another protocol.
 * It fails over like a 5xx before the first byte, and its outcome class `protocol` counts neither
 * toward the provider's error rate nor its breaker (lib/gateway/README.md, Error classes).
 */
export function wrongContentType(headers: IncomingHttpHeaders, expected: "json" | "sse", status: number): AttemptError | null {
  const raw = headers["content-type"];
  const media = (Array.isArray(raw) ? raw[0] : raw)?.split(";")[0]?.trim().toLowerCase() ?? "";
  if (expected === "sse") {
    if (media === "text/event-stream") return null;
    return new AttemptError(
      "transient",
      "protocol",
      `provider answered ${status} with ${describe(media)} to a stream request; expected text/event-stream`,
      status,
    );
  }
  // A JSON API that leaves the content type out is still read as JSON; a declared other type is not.
  if (media === "" || media === "application/json" || media.endsWith("+json")) return null;
  return new AttemptError("transient", "protocol", `provider answered ${status} with ${describe(media)}; expected application/json`, status);
}

function describe(media: string): string {
  return media === "" ? "no content type" : `content type ${media.slice(0, 100)}`;
}

/**
 * Incremental Server-Sent Events parser (the WHATWG event-stream format): feed it chunks as
 * they arrive, it calls `onEvent` per complete event. Handles CRLF, multi-line data and comments.
 */
export function createSseParser(onEvent: (name: string | null, data: string) => void) {
  let buffer = "";
  let name: string | null = null;
  let data: string[] = [];

  function line(l: string): void {
    if (l === "") {
      if (data.length > 0) onEvent(name, data.join("\n"));
      name = null;
      data = [];
      return;
    }
    if (l.startsWith(":")) return;
    const colon = l.indexOf(":");
    const field = colon === -1 ? l : l.slice(0, colon);
    let value = colon === -1 ? "" : l.slice(colon + 1);
    if (value.startsWith(" ")) value = value.slice(1);
    if (field === "event") name = value;
    else if (field === "data") data.push(value);
  }

  return {
    push(chunk: string): void {
      buffer += chunk;
      let i: number;
      while ((i = buffer.search(/\r\n|\n|\r/)) !== -1) {
        const l = buffer.slice(0, i);
        const sep = buffer[i] === "\r" && buffer[i + 1] === "\n" ? 2 : 1;
        buffer = buffer.slice(i + sep);
        line(l);
      }
    },
    /** Flushes a final event not followed by a blank line. */
    end(): void {
      if (buffer !== "") line(buffer);
      buffer = "";
      line("");
    },
  };
}

/** One SSE event as text. */
export function sseEvent(name: string, data: unknown): string {
  return `event: ${name}\ndata: ${JSON.stringify(data)}\n\n`;
}

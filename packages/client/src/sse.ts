// A Server-Sent Events parser (the WHATWG HTML standard's "event stream interpretation"),
// fed text as it arrives from fetch's body stream: browsers' EventSource cannot send headers
// (X-API-Key) and Node 20 has none, so the client reads the stream itself.

export interface SseEvent {
  /** The event's type: its `event:` field, "message" without one. */
  event: string;
  data: string;
  /** The last event id seen so far (the `id:` field of this event or an earlier one). */
  id: string;
}

export class SseParser {
  /** The last `id:` seen: sent back as Last-Event-ID on a reconnection. */
  lastEventId = "";
  /** The reconnection time the server asked for (`retry:`), in ms; null until it does. */
  retryMs: number | null = null;
  private buffer = "";
  private data: string[] = [];
  private type = "";
  private started = false;
  /** The previous chunk ended with CR: a LF at the start of the next one belongs to it. */
  private afterCr = false;

  /** The events that `chunk` completes. */
  push(chunk: string): SseEvent[] {
    let text = chunk;
    if (!this.started && text.length) {
      this.started = true;
      if (text.charCodeAt(0) === 0xfeff) text = text.slice(1);
    }
    if (this.afterCr && text.startsWith("\n")) text = text.slice(1);
    this.afterCr = false;
    this.buffer += text;
    const out: SseEvent[] = [];
    for (;;) {
      const m = /\r\n|\r|\n/.exec(this.buffer);
      if (!m) break;
      // A CR at the very end may be the first half of a CRLF: take the line, skip a LF to come.
      if (m[0] === "\r" && m.index === this.buffer.length - 1) this.afterCr = true;
      const line = this.buffer.slice(0, m.index);
      this.buffer = this.buffer.slice(m.index + m[0].length);
      const ev = this.line(line);
      if (ev) out.push(ev);
    }
    return out;
  }

  /** At the end of the stream: an event not ended by a blank line is dropped, as the standard says. */
  end(): SseEvent[] {
    this.buffer = "";
    this.data = [];
    this.type = "";
    return [];
  }

  private line(line: string): SseEvent | null {
    if (line === "") return this.dispatch();
    if (line.startsWith(":")) return null; // a comment (heartbeats: ": ping")
    const colon = line.indexOf(":");
    const field = colon === -1 ? line : line.slice(0, colon);
    let value = colon === -1 ? "" : line.slice(colon + 1);
    if (value.startsWith(" ")) value = value.slice(1);
    switch (field) {
      case "event":
        this.type = value;
        break;
      case "data":
        this.data.push(value);
        break;
      case "id":
        if (!value.includes("\u0000")) this.lastEventId = value;
        break;
      case "retry":
        if (/^\d+$/.test(value)) this.retryMs = Number(value);
        break;
      default:
        break; // unknown fields are ignored
    }
    return null;
  }

  private dispatch(): SseEvent | null {
    const data = this.data;
    const type = this.type;
    this.data = [];
    this.type = "";
    if (data.length === 0) return null;
    return { event: type || "message", data: data.join("\n"), id: this.lastEventId };
  }
}

/** The events of a response body, as they arrive (the parser keeps the last id and retry). */
export async function* readEvents(body: ReadableStream<Uint8Array>, parser: SseParser): AsyncGenerator<SseEvent> {
  const reader = body.getReader();
  const decoder = new TextDecoder();
  try {
    for (;;) {
      const { done, value } = await reader.read();
      if (done) break;
      yield* parser.push(decoder.decode(value, { stream: true }));
    }
    yield* parser.push(decoder.decode());
    parser.end();
  } finally {
    // Stop the download when the reader leaves early (an end event, an abort).
    reader.cancel().catch(() => {});
  }
}

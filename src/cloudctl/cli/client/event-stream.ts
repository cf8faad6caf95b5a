// Server-Sent Events as the client commands read GET /watch: the text/event-stream framing (WHATWG
// HTML, "Interpreting an event stream") turned into {event, id, data} records. Comments (`: heartbeat`)
// and fields it does not use are skipped; a record is dispatched at its blank line.
export interface StreamEvent {
  event: string;
  /** The `id:` of the event, when it had one: where a reconnect resumes after. */
  id: string | undefined;
  data: string;
}

export async function* readEventStream(body: AsyncIterable<Uint8Array>): AsyncGenerator<StreamEvent> {
  const decoder = new TextDecoder();
  let buffer = '';
  let event = '';
  let id: string | undefined;
  let data: string[] = [];
  for await (const chunk of body) {
    buffer += decoder.decode(chunk, { stream: true });
    let newline = buffer.search(/\r\n|\r|\n/);
    while (newline >= 0) {
      const line = buffer.slice(0, newline);
      buffer = buffer.slice(newline + (buffer.startsWith('\r\n', newline) ? 2 : 1));
      newline = buffer.search(/\r\n|\r|\n/);
      if (line === '') {
        if (data.length > 0) yield { event: event === '' ? 'message' : event, id, data: data.join('\n') };
        event = '';
        id = undefined;
        data = [];
        continue;
      }
      if (line.startsWith(':')) continue;
      const colon = line.indexOf(':');
      const field = colon < 0 ? line : line.slice(0, colon);
      const value = colon < 0 ? '' : line.slice(colon + 1).replace(/^ /, '');
      if (field === 'event') event = value;
      else if (field === 'id') id = value;
      else if (field === 'data') data.push(value);
    }
  }
}

/**
 * Server-sent events read from a fetch body. A browser EventSource cannot send the Authorization
 * header, so the live tail reads the stream itself: lines `event:` and `data:`, a blank line ends
 * an event (the SSE format's subset that the server writes).
 */
export interface SseEvent {
  event: string;
  data: string;
}

export async function readSse(body: ReadableStream<Uint8Array>, onEvent: (event: SseEvent) => void): Promise<void> {
  // DOM's typing of TextDecoderStream takes any BufferSource, wider than the body's Uint8Array.
  const decoder = new TextDecoderStream() as unknown as ReadableWritablePair<string, Uint8Array>;
  const reader = body.pipeThrough(decoder).getReader();
  let pending = '';
  let event = 'message';
  let data: string[] = [];
  for (;;) {
    const { value, done } = await reader.read();
    if (done) return;
    pending += value;
    let newline: number;
    while ((newline = pending.indexOf('\n')) >= 0) {
      const line = pending.slice(0, newline).replace(/\r$/, '');
      pending = pending.slice(newline + 1);
      if (line === '') {
        if (data.length > 0) onEvent({ event, data: data.join('\n') });
        event = 'message';
        data = [];
      } else if (line.startsWith(':')) {
        // a comment line
      } else {
        const colon = line.indexOf(':');
        const name = colon < 0 ? line : line.slice(0, colon);
        const text = colon < 0 ? '' : line.slice(colon + 1).replace(/^ /, '');
        if (name === 'event') event = text;
        else if (name === 'data') data.push(text);
      }
    }
  }
}

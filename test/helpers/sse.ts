/** Reads a Server-Sent Events stream until the server ends it. */
import http from 'http';

export interface SseEvent {
  event: string;
  data: any;
}

/** Every event of the stream at `url`, in order, once the server closes it. */
export function readSse(url: string): Promise<SseEvent[]> {
  return new Promise((resolve, reject) => {
    http
      .get(url, (response) => {
        let buffer = '';
        const events: SseEvent[] = [];
        response.on('data', (chunk: Buffer) => {
          buffer += chunk.toString();
          let end;
          while ((end = buffer.indexOf('\n\n')) !== -1) {
            const block = buffer.slice(0, end);
            buffer = buffer.slice(end + 2);
            const event = /^event: (.*)$/m.exec(block)?.[1] ?? 'message';
            const data = /^data: (.*)$/m.exec(block)?.[1] ?? 'null';
            events.push({ event, data: JSON.parse(data) });
          }
        });
        response.on('end', () => resolve(events));
        response.on('error', reject);
      })
      .on('error', reject);
  });
}

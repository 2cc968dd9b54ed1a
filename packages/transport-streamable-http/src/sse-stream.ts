import { createParser, type EventSourceMessage } from 'eventsource-parser';

export interface SseHandlers {
  onevent: (event: EventSourceMessage) => void;
  onretry?: (ms: number) => void;
}

/**
 * Reads a `text/event-stream` body to its end, calling `onevent` for every event.
 * Comment lines (keep-alives) are ignored by the parser. Resolves when the body ends;
 * rejects when it fails (a dropped connection).
 */
export async function readSse(
  body: AsyncIterable<Buffer | Uint8Array | string>,
  handlers: SseHandlers,
): Promise<void> {
  const parser = createParser({
    onEvent: handlers.onevent,
    ...(handlers.onretry ? { onRetry: handlers.onretry } : {}),
  });
  const decoder = new TextDecoder();
  for await (const chunk of body) {
    parser.feed(typeof chunk === 'string' ? chunk : decoder.decode(chunk, { stream: true }));
  }
  parser.feed(decoder.decode());
}

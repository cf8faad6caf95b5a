// A client of a Node process's inspector (`--inspect=127.0.0.1:PORT`) over its WebSocket, as DevTools
// talks to it: commands answered by id. A benchmark uses it for cloudctl's sampling heap profile,
// which lives as long as the session that started it, so the session stays open for the run.
import { z } from 'zod';

const targetsSchema = z.array(z.object({ webSocketDebuggerUrl: z.string() }));
const messageSchema = z.looseObject({
  id: z.number().optional(),
  result: z.unknown().optional(),
  error: z.unknown().optional(),
});

export interface InspectorClient {
  /** Sends a command; resolves with its result, rejects with its error or when the session ends. */
  post(method: string, params?: Record<string, unknown>): Promise<unknown>;
  close(): void;
}

export async function connectInspector(port: number): Promise<InspectorClient> {
  const targets = targetsSchema.parse(await (await fetch(`http://127.0.0.1:${port}/json/list`)).json());
  const target = targets[0];
  if (target === undefined) throw new Error(`no inspector target on port ${port}`);
  const socket = new WebSocket(target.webSocketDebuggerUrl);
  const pending = new Map<number, { resolve(value: unknown): void; reject(error: Error): void }>();
  let next = 0;
  const failAll = (why: string) => {
    for (const { reject } of pending.values()) reject(new Error(why));
    pending.clear();
  };
  socket.addEventListener('message', (event) => {
    const message = messageSchema.parse(JSON.parse(String(event.data)));
    const waiting = message.id === undefined ? undefined : pending.get(message.id);
    if (message.id === undefined || waiting === undefined) return;
    pending.delete(message.id);
    if (message.error === undefined) waiting.resolve(message.result);
    else waiting.reject(new Error(JSON.stringify(message.error)));
  });
  socket.addEventListener('close', () => failAll('the inspector session closed (did the process exit?)'));
  await new Promise<void>((resolve, reject) => {
    socket.addEventListener('open', () => resolve(), { once: true });
    socket.addEventListener('error', () => reject(new Error('the inspector connection failed')), {
      once: true,
    });
  });
  return {
    post(method, params = {}) {
      const id = ++next;
      return new Promise((resolve, reject) => {
        pending.set(id, { resolve, reject });
        socket.send(JSON.stringify({ id, method, params }));
      });
    },
    close() {
      socket.close();
    },
  };
}

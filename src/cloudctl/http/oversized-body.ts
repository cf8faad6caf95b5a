// A request whose declared body is over the limit gets its 413, even from a client that sends the
// whole body before it reads (Python's http.client, many libraries). Answering at once and closing
// would leave the unread upload in the socket, which the kernel then resets: the client sees a
// broken pipe, never the answer. So the body is read and discarded, up to a bound, and only then
// answered, with `connection: close`. Past the bound the answer goes at once: a client that uploads
// that much of a refused body is not owed the wait.
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';

/** The body limit fastify enforces while reading (createApp sets it), declared once. */
export const BODY_LIMIT_BYTES = 1 << 20;
/** How much of a refused body is read and thrown away before the answer. */
const DISCARD_LIMIT_BYTES = 64 << 20;

/** Reads and drops the request's body until it ends, fails, or passes the bound. */
function discard(request: FastifyRequest): Promise<void> {
  const stream = request.raw;
  return new Promise((resolve) => {
    let read = 0;
    const done = () => {
      stream.off('data', count);
      resolve();
    };
    const count = (chunk: Buffer) => {
      read += chunk.length;
      if (read > DISCARD_LIMIT_BYTES) {
        stream.pause();
        done();
      }
    };
    stream.on('data', count);
    stream.once('end', done);
    stream.once('error', done);
    stream.once('close', done);
  });
}

export function refuseOversizedBodies(
  app: FastifyInstance,
  fail: (reply: FastifyReply, request: FastifyRequest, status: number, code: string, message: string) => void,
): void {
  // An async hook returns the reply only once it has answered; undefined lets the request on.
  app.addHook('onRequest', async (request, reply): Promise<FastifyReply | undefined> => {
    const declared = Number(request.headers['content-length']);
    if (!Number.isFinite(declared) || declared <= BODY_LIMIT_BYTES) return;
    await discard(request);
    reply.header('connection', 'close');
    fail(
      reply,
      request,
      413,
      'FST_ERR_CTP_BODY_TOO_LARGE',
      `Request body is too large: ${declared} bytes declared, at most ${BODY_LIMIT_BYTES} taken`,
    );
    return reply;
  });
}

// The demo's stand-in for an external check (a CI job, a ticket system): it receives the deployment
// service's webhook request, "runs its tests", gets a token from POST /oauth/token with its client
// credentials, and posts its verdict to the callback URI it was given, as a real job would.
import { once } from 'node:events';
import { createServer } from 'node:http';
import { setTimeout as sleep } from 'node:timers/promises';
import { z } from 'zod';

const tokenSchema = z.object({ access_token: z.string() });

export interface DemoWebhookJob {
  url: string;
  close(): void;
}

export async function startDemoWebhookJob(options: {
  api: string;
  clientId: string;
  clientSecret: string;
  say: (line: string) => void;
}): Promise<DemoWebhookJob> {
  const callBack = async (callbackUri: string, subject: string) => {
    await sleep(1000);
    const form = new URLSearchParams({
      grant_type: 'client_credentials',
      client_id: options.clientId,
      client_secret: options.clientSecret,
      audience: options.api,
    });
    const token = tokenSchema.parse(
      await (await fetch(`${options.api}/oauth/token`, { method: 'POST', body: form })).json(),
    );
    const answer = await fetch(`${callbackUri}/callback`, {
      method: 'POST',
      headers: { authorization: `Bearer ${token.access_token}`, 'content-type': 'application/json' },
      body: JSON.stringify({ success: true, mdMessage: `smoke tests of ${subject} passed` }),
    });
    options.say(`    [webhook job] smoke tests of ${subject} passed; called back (${answer.status})`);
  };
  const server = createServer((request, response) => {
    let text = '';
    request.on('data', (chunk: Buffer) => {
      text += chunk.toString();
    });
    request.on('end', () => {
      let body: { callbackUri?: unknown; replicaSet?: unknown };
      try {
        body = JSON.parse(text);
      } catch {
        response.writeHead(400).end();
        return;
      }
      response.writeHead(202).end();
      if (typeof body.callbackUri !== 'string') return;
      options.say(`    [webhook job] testing ${String(body.replicaSet)}`);
      callBack(body.callbackUri, String(body.replicaSet)).catch((error: unknown) =>
        options.say(`    [webhook job] could not call back: ${String(error)}`),
      );
    });
  });
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  const address = server.address();
  const port = typeof address === 'object' && address !== null ? address.port : 0;
  return { url: `http://127.0.0.1:${port}`, close: () => server.close() };
}

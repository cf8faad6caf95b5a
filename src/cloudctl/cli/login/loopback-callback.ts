// The loopback redirect of `cloudctl login --sso` (RFC 8252 section 7.3): an HTTP server on
// 127.0.0.1 at a port the system picks, where the provider sends the browser back with the code. Only
// GET /callback carrying this sign-in's state is taken; a request with another state (another tab, a
// page that guessed the port) is answered 400 and the wait goes on. The browser is told the outcome
// in plain words; the command learns the code, or why there is none.
import { createServer, type Server } from 'node:http';
import { CliError } from '../client/index.ts';

export interface LoopbackCallback {
  /** http://127.0.0.1:<port>/callback */
  redirectUri: string;
  /** The code the provider sent back; rejects with a CliError when it sent an error instead. */
  code: Promise<string>;
  close(): void;
}

const PAGE = { 'content-type': 'text/plain; charset=utf-8', 'cache-control': 'no-store' };

export async function listenForCallback(state: string): Promise<LoopbackCallback> {
  let settle: { resolve: (code: string) => void; reject: (error: CliError) => void } | undefined;
  const code = new Promise<string>((resolve, reject) => {
    settle = { resolve, reject };
  });
  const server: Server = createServer((request, response) => {
    const url = new URL(request.url ?? '/', 'http://127.0.0.1');
    if (request.method !== 'GET' || url.pathname !== '/callback') {
      response.writeHead(404, PAGE).end('Not found.\n');
      return;
    }
    const params = url.searchParams;
    if (params.get('state') !== state) {
      response.writeHead(400, PAGE).end('This is not the sign-in cloudctl started; it is still waiting.\n');
      return;
    }
    const error = params.get('error');
    const received = params.get('code');
    if (error !== null || received === null) {
      const why = params.get('error_description') ?? error ?? 'no code';
      response.writeHead(401, PAGE).end(`The provider did not sign you in: ${why}\n`);
      settle?.reject(new CliError('SIGN_IN', `the provider did not sign you in: ${why}`));
      return;
    }
    response.writeHead(200, PAGE).end('Signed in. You may close this page and go back to cloudctl.\n');
    settle?.resolve(received);
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(0, '127.0.0.1', resolve);
  });
  const address = server.address();
  const port = typeof address === 'object' && address !== null ? address.port : 0;
  return {
    redirectUri: `http://127.0.0.1:${port}/callback`,
    code,
    close: () => {
      server.close();
      server.closeAllConnections();
    },
  };
}

// One HTTP or HTTPS listener for a side port (health, metrics, pprof). Binding failures name the
// setting that chose the port, so "address in use" tells the user which key to change.
import { readFile } from 'node:fs/promises';
import {
  createServer as createHttpServer,
  type IncomingMessage,
  type Server,
  type ServerResponse,
} from 'node:http';
import { createServer as createHttpsServer } from 'node:https';
import { TLSSocket } from 'node:tls';
import { CodedError } from '../../lib/coded-error.ts';
import { errorCode } from '../../lib/is-record.ts';

export type RouteHandler = (req: IncomingMessage, res: ServerResponse, url: URL) => void | Promise<void>;

export interface SideServerTls {
  certFile: string;
  keyFile: string;
  passphrase?: string | undefined;
  caCertFile?: string | undefined;
  clientAuth: 'none' | 'want' | 'need';
}

export interface SideServerOptions {
  /** The config key that chose the port, e.g. `server.port`; used in errors and logs. */
  setting: string;
  host: string;
  port: number;
  routes: Record<string, RouteHandler>;
  tls?: SideServerTls | undefined;
  onError: (error: Error) => void;
}

export interface SideServer {
  url: string;
  close(): Promise<void>;
}

export class SideServerError extends CodedError {}

export function sendJson(res: ServerResponse, status: number, body: unknown) {
  const text = `${JSON.stringify(body, null, 2)}\n`;
  res.writeHead(status, {
    'content-type': 'application/json; charset=utf-8',
    'content-length': Buffer.byteLength(text),
  });
  res.end(text);
}

async function tlsOptions(tls: SideServerTls) {
  const [cert, key, ca] = await Promise.all([
    readFile(tls.certFile),
    readFile(tls.keyFile),
    tls.caCertFile === undefined ? undefined : readFile(tls.caCertFile),
  ]);
  return {
    cert,
    key,
    passphrase: tls.passphrase,
    ca,
    requestCert: tls.clientAuth !== 'none',
    // `want` asks for a certificate and verifies one when sent; only `need` refuses clients without.
    rejectUnauthorized: tls.clientAuth === 'need',
  };
}

export async function startSideServer(options: SideServerOptions): Promise<SideServer> {
  const handle = (req: IncomingMessage, res: ServerResponse) => {
    const url = new URL(req.url ?? '/', 'http://side-server');
    const route = options.routes[url.pathname];
    if (req.method !== 'GET' && req.method !== 'HEAD') {
      sendJson(res, 405, { error: `method ${req.method} not allowed; use GET` });
      return;
    }
    if (route === undefined) {
      sendJson(res, 404, {
        error: `no such path ${url.pathname}`,
        paths: Object.keys(options.routes).sort(),
      });
      return;
    }
    Promise.resolve(route(req, res, url)).catch((error: Error) => {
      options.onError(error);
      if (!res.headersSent) sendJson(res, 500, { error: error.message });
      else res.destroy();
    });
  };

  let server: Server;
  if (options.tls === undefined) server = createHttpServer(handle);
  else {
    const tls = options.tls;
    const secure = createHttpsServer(await tlsOptions(tls), (req, res) => {
      // With `want`, a certificate that was sent but does not verify is refused here.
      const socket = req.socket;
      const presented = socket instanceof TLSSocket && socket.getPeerCertificate().raw !== undefined;
      if (tls.clientAuth === 'want' && presented && socket instanceof TLSSocket && !socket.authorized) {
        sendJson(res, 403, { error: `client certificate refused: ${socket.authorizationError}` });
        return;
      }
      handle(req, res);
    });
    server = secure;
  }

  await new Promise<void>((resolve, reject) => {
    server.once('error', (error) => {
      const code = errorCode(error);
      if (code === 'EADDRINUSE') {
        reject(
          new SideServerError(
            'ORCH_ERR_PORT_IN_USE',
            `${options.setting}: port ${options.port} on ${options.host} is already in use; set ${options.setting} to a free port or stop the process using it`,
          ),
        );
      } else {
        reject(
          new SideServerError(
            'ORCH_ERR_LISTEN',
            `${options.setting}: cannot listen on ${options.host}:${options.port}: ${code}`,
          ),
        );
      }
    });
    server.listen(options.port, options.host, () => resolve());
  });
  server.on('error', options.onError);
  const address = server.address();
  if (address === null || typeof address === 'string')
    throw new SideServerError('ORCH_ERR_LISTEN', `${options.setting}: no TCP address`);
  const host = address.family === 'IPv6' ? `[${address.address}]` : address.address;
  return {
    url: `${options.tls === undefined ? 'http' : 'https'}://${host}:${address.port}`,
    close: () =>
      new Promise((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      }),
  };
}

// What a TLS server says to a client at the handshake, seen from a raw socket: gRPC clients report
// every refused handshake as UNAVAILABLE "failed to connect", which a stopped server also gives, so
// refusal tests read the server's own TLS alert here to know it refused for the reason they test.
import { connect } from 'node:tls';

export interface HandshakeClient {
  /** CA that signed the server's certificate. */
  ca: string;
  certPem?: string;
  keyPem?: string;
  servername?: string;
}

/** What the server did: answered HTTP/2, closed the connection after the handshake, or failed it. */
export type HandshakeOutcome = 'accepted' | 'closed after handshake' | `error: ${string}`;

/**
 * Completes a TLS handshake and sends the HTTP/2 client preface. A server that took the client answers
 * with its SETTINGS frame (`accepted`). TLS 1.3 servers judge the client certificate after the client
 * has finished, so a refusal shows as the connection closing right after the handshake, or as an error
 * carrying the server's alert (e.g. "alert certificate required"); a server that is not there is an
 * error too (ECONNREFUSED), never one of the other two.
 */
export function tlsHandshake(address: string, client: HandshakeClient): Promise<HandshakeOutcome> {
  const [host = '127.0.0.1', port = '0'] = address.split(':');
  return new Promise((resolve) => {
    const socket = connect({
      host,
      port: Number(port),
      ca: client.ca,
      ...(client.certPem === undefined ? {} : { cert: client.certPem }),
      ...(client.keyPem === undefined ? {} : { key: client.keyPem }),
      servername: client.servername ?? 'localhost',
      ALPNProtocols: ['h2'],
    });
    let settled = false;
    const done = (outcome: HandshakeOutcome) => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      socket.destroy();
      resolve(outcome);
    };
    const timer = setTimeout(() => done('error: no answer within 5 s'), 5000);
    socket.on('secureConnect', () => socket.write('PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n'));
    socket.on('data', () => done('accepted'));
    socket.on('error', (error) => done(`error: ${error.message}`));
    socket.on('close', () => done('closed after handshake'));
  });
}

// `grpc.*`: the endpoint agents dial, its TLS, and how sessions are kept alive.
import { z } from 'zod';
import { setting } from '../../../lib/setting-meta.ts';

export const tlsSchema = z
  .strictObject({
    certFile: setting(z.string().min(1), {
      description: 'PEM certificate chain of the gRPC endpoint',
      file: true,
    }),
    keyFile: setting(z.string().min(1), {
      description: 'PEM private key of the certificate (unencrypted)',
      file: true,
    }),
    clientCaFile: setting(z.string().min(1).optional(), {
      description: 'PEM CA bundle; when set, agents must present a client certificate it signed (mTLS)',
      file: true,
    }),
  })
  .describe('TLS of the gRPC endpoint; absent means plaintext. Paths are relative to the config file');

export type TlsSettings = z.infer<typeof tlsSchema>;

export const grpcSchema = z
  .strictObject({
    host: z.string().min(1).default('0.0.0.0').describe('address to listen on'),
    port: z.number().int().min(0).max(65535).default(9091).describe('port to listen on; 0 picks a free one'),
    tls: tlsSchema.optional(),
    heartbeatSeconds: z
      .number()
      .int()
      .min(0)
      .default(20)
      .describe('interval of the heartbeats sent down each session; 0 sends none'),
    helloTimeoutSeconds: z
      .number()
      .int()
      .positive()
      .default(10)
      .describe('a session that has not said hello by then is closed'),
  })
  .describe('the gRPC endpoint agents connect to (orchagent.v1, health, reflection)');

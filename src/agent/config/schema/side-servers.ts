// The agent's side listeners: health (`server.*`), metrics (`telemetry.*`) and profiling (`pprof.*`).
// The spec leaves the types of `server.ssl.*` open; docs/decisions.md records our reading.
import { z } from 'zod';
import { caseInsensitiveEnum, nonEmptyString, port } from '../../../lib/schema-primitives.ts';
import { setting } from '../../../lib/setting-meta.ts';

export const pprofSchema = () =>
  z
    .object({
      enabled: setting(z.boolean().default(false), { description: 'serve pprof-compatible profiles' }),
      port: setting(port().default(6060), { description: 'port of the profiling endpoint' }),
    })
    .prefault({});

export const telemetrySchema = () =>
  z
    .object({
      enabled: setting(z.boolean().default(false), { description: 'serve Prometheus metrics' }),
      port: setting(port().default(8008), {
        description: 'port of the metrics endpoint (`/metrics` and `/prometheus_metrics`)',
      }),
    })
    .prefault({});

const ssl = z
  .object({
    enabled: setting(z.boolean().default(false), { description: 'serve the health endpoint over TLS' }),
    certFile: setting(nonEmptyString().optional(), { description: 'server certificate (PEM)', file: true }),
    keyFile: setting(nonEmptyString().optional(), { description: 'server key (PEM)', file: true }),
    keyFilePassword: setting(nonEmptyString().optional(), {
      description: 'password of an encrypted key file',
      secret: true,
    }),
    keyPassword: setting(nonEmptyString().optional(), {
      description: 'accepted as another name for keyFilePassword',
      secret: true,
    }),
    caCertFile: setting(nonEmptyString().optional(), {
      description: 'CA bundle (PEM) that client certificates must chain to',
      file: true,
    }),
    clientAuth: setting(caseInsensitiveEnum(['none', 'want', 'need']).default('none'), {
      type: 'none \\| want \\| need',
      description: '`none`, `want` (verify a certificate when sent) or `need` (refuse clients without one)',
    }),
  })
  .superRefine((s, ctx) => {
    if (s.enabled) {
      for (const key of ['certFile', 'keyFile'] as const) {
        if (s[key] === undefined) {
          ctx.addIssue({
            code: 'custom',
            path: [key],
            message: `server.ssl.enabled: true needs server.ssl.${key}`,
          });
        }
      }
    }
    if (s.clientAuth !== 'none' && s.caCertFile === undefined) {
      ctx.addIssue({
        code: 'custom',
        path: ['caCertFile'],
        message: `clientAuth: ${s.clientAuth} needs server.ssl.caCertFile to verify client certificates against`,
      });
    }
    if (
      s.keyPassword !== undefined &&
      s.keyFilePassword !== undefined &&
      s.keyPassword !== s.keyFilePassword
    ) {
      ctx.addIssue({
        code: 'custom',
        path: ['keyPassword'],
        message: 'keyPassword and keyFilePassword are two names for the same password and differ here',
      });
    }
  });

export const serverSchema = () =>
  z
    .object({
      host: setting(nonEmptyString().default('localhost'), {
        description: 'address the health server binds to',
      }),
      port: setting(port().default(8082), { description: 'port of the health server' }),
      ssl: ssl.prefault({}),
    })
    .prefault({});

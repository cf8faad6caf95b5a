// cloudctl's configuration file, as zod schemas: the single source of its types and defaults.
import { z } from 'zod';

/** A token is never stored, only its SHA-256: a leaked config file does not leak agent credentials. */
export const TOKEN_HASH = /^sha256:[0-9a-f]{64}$/;

export const DEFAULT_DATA_DIR = 'data/cloudctl';

const tlsSchema = z
  .strictObject({
    certFile: z.string().min(1).describe('PEM certificate chain of the gRPC endpoint'),
    keyFile: z.string().min(1).describe('PEM private key of the certificate (unencrypted)'),
    clientCaFile: z
      .string()
      .min(1)
      .optional()
      .describe('PEM CA bundle; when set, agents must present a client certificate it signed (mTLS)'),
  })
  .describe('TLS of the gRPC endpoint; absent means plaintext');

const grpcSchema = z.strictObject({
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
});

const agentSchema = z.strictObject({
  id: z
    .string()
    .min(1)
    .describe('agent id: the hello must carry it; a client certificate must have it as CN'),
  tokenHash: z
    .string()
    .regex(TOKEN_HASH, 'expected sha256:<64 lowercase hex digits> (printf %s "$TOKEN" | sha256sum)')
    .optional()
    .describe('SHA-256 of the bearer token the agent sends; absent: client certificate only'),
});

const databaseSchema = z
  .strictObject({
    url: z
      .string()
      .regex(/^postgres(ql)?:\/\//, 'expected a postgres:// URL')
      .optional()
      .describe('PostgreSQL server; absent: embedded PGlite in dataDir'),
    dataDir: z
      .string()
      .min(1)
      .optional()
      .describe(
        `embedded PGlite data directory, relative to the config file (default ${DEFAULT_DATA_DIR}); memory:// keeps nothing`,
      ),
  })
  .refine((db) => db.url === undefined || db.dataDir === undefined, {
    message: 'set either url or dataDir, not both',
  });

const httpTlsSchema = z
  .strictObject({
    certFile: z.string().min(1).describe('PEM certificate chain of the HTTP API'),
    keyFile: z.string().min(1).describe('PEM private key of the certificate (unencrypted)'),
  })
  .describe('TLS of the HTTP API; absent means plain HTTP');

const httpSchema = z.strictObject({
  host: z.string().min(1).default('0.0.0.0').describe('address the HTTP API listens on'),
  port: z
    .number()
    .int()
    .min(0)
    .max(65535)
    .default(7002)
    .describe('port of the HTTP API (REST, Swagger, health, metrics); 0 picks a free one'),
  tls: httpTlsSchema.optional(),
  shutdownTimeoutMs: z
    .number()
    .int()
    .positive()
    .default(10_000)
    .describe('how long a stopping cloudctl lets in-flight HTTP requests finish'),
});

/**
 * A role name as written in permissions and user entries. Whitespace is refused: the product we
 * replace silently dropped such roles and so opened the account to everyone.
 */
export const roleSchema = z.string().min(1).regex(/^\S+$/, 'a role name may not contain whitespace');

const userSchema = z.strictObject({
  name: z.string().min(1).describe('user name, as logged and shown in task owners'),
  tokenHash: z
    .string()
    .regex(TOKEN_HASH, 'expected sha256:<64 lowercase hex digits> (printf %s "$TOKEN" | sha256sum)')
    .describe('SHA-256 of the bearer token the user sends'),
  roles: z.array(roleSchema).default([]).describe('roles matched against account permissions'),
});

const authSchema = z.strictObject({
  adminRoles: z
    .array(roleSchema)
    .default([])
    .describe('users with one of these roles may do everything, on every account'),
  anonymous: z
    .strictObject({
      enabled: z
        .boolean()
        .default(false)
        .describe('let requests without a token in, as the user "anonymous"; for demos only'),
      roles: z.array(roleSchema).default([]).describe('roles the anonymous user has'),
    })
    .prefault({}),
});

export const cloudctlConfigSchema = z.strictObject({
  grpc: grpcSchema.prefault({}),
  http: httpSchema.prefault({}),
  users: z
    .array(userSchema)
    .default([])
    .refine((users) => new Set(users.map((u) => u.name)).size === users.length, {
      message: 'user names must be unique',
    })
    .refine((users) => new Set(users.map((u) => u.tokenHash)).size === users.length, {
      message: 'two users may not share a token',
    }),
  auth: authSchema.prefault({}),
  agents: z
    .array(agentSchema)
    .default([])
    .refine((agents) => new Set(agents.map((a) => a.id)).size === agents.length, {
      message: 'agent ids must be unique',
    }),
  database: databaseSchema.prefault({}),
  operations: z
    .strictObject({
      waitTimeoutMs: z
        .number()
        .int()
        .positive()
        .default(60_000)
        .describe('how long the internal API waits for an operation result'),
    })
    .prefault({}),
  logging: z
    .strictObject({
      level: z.enum(['fatal', 'error', 'warn', 'info', 'debug', 'trace']).default('info'),
    })
    .prefault({}),
});

export type CloudctlConfig = z.infer<typeof cloudctlConfigSchema>;
export type AgentEntry = z.infer<typeof agentSchema>;
export type TlsSettings = z.infer<typeof tlsSchema>;
export type UserEntry = z.infer<typeof userSchema>;

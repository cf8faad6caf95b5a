// Starts a real control plane on a loopback port (embedded PGlite in memory) and gives tests clients
// that act as agents: real gRPC over real sockets, tokens and certificates made in the test.
import { type ChannelCredentials, credentials, Metadata, type ServiceError } from '@grpc/grpc-js';
import pino from 'pino';
import {
  type CloudctlConfig,
  type ControlPlane,
  hashToken,
  parseConfig,
  secretEngines,
  startControlPlane,
} from '../../src/cloudctl/index.ts';
import {
  type AgentMessage,
  type CacheAck__Output,
  type CacheBatch,
  type ControlMessage__Output,
  type GetResumeVersionsResponse__Output,
  type Hello,
  loadContract,
  type OperationResult,
} from '../../src/proto/index.ts';

export interface LogLine {
  level: number;
  msg: string;
  [field: string]: unknown;
}

export interface TestControlPlane {
  plane: ControlPlane;
  /** gRPC address, host:port. */
  address: string;
  /** HTTP API base URL. */
  url: string;
  logs: LogLine[];
  close(): Promise<void>;
}

export const AGENT_TOKEN = 'token-of-agent-1-3f9c';
/** Users every test control plane knows: an admin, a developer (role dev) and an operator (role ops). */
export const USERS = {
  admin: { name: 'root', token: 'token-of-root-71ac', roles: ['admins'] },
  dev: { name: 'dana', token: 'token-of-dana-0b2e', roles: ['dev'] },
  ops: { name: 'olaf', token: 'token-of-olaf-9d41', roles: ['ops'] },
  nobody: { name: 'nina', token: 'token-of-nina-5c37', roles: ['guests'] },
} as const;

/** A control plane that knows agent-1 (token AGENT_TOKEN) unless the config says otherwise. */
export async function startTestControlPlane(config: Record<string, unknown> = {}): Promise<TestControlPlane> {
  const logs: LogLine[] = [];
  const logger = pino({ level: 'debug' }, { write: (line: string) => void logs.push(JSON.parse(line)) });
  const parsed: CloudctlConfig = parseConfig(
    {
      agents: [{ id: 'agent-1', tokenHash: hashToken(AGENT_TOKEN) }],
      users: Object.values(USERS).map((u) => ({
        name: u.name,
        tokenHash: hashToken(u.token),
        roles: [...u.roles],
      })),
      auth: { adminRoles: ['admins'] },
      database: { dataDir: 'memory://' },
      ...config,
      grpc: { host: '127.0.0.1', port: 0, ...(typeof config.grpc === 'object' ? config.grpc : {}) },
      http: { host: '127.0.0.1', port: 0, ...(typeof config.http === 'object' ? config.http : {}) },
    },
    'test config',
    process.cwd(),
  );
  const plane = await startControlPlane(parsed, {
    logger,
    secretEngines: secretEngines(parsed.secrets, { configDir: process.cwd(), env: process.env }),
  });
  return {
    plane,
    address: `127.0.0.1:${plane.port}`,
    url: `http://127.0.0.1:${plane.httpPort}`,
    logs,
    close: () => plane.close(),
  };
}

export function bearer(token: string): Metadata {
  const metadata = new Metadata();
  metadata.set('authorization', `Bearer ${token}`);
  return metadata;
}

export function helloFor(agentId: string, accounts: string[]): Hello {
  return {
    agentId,
    version: '0.1.0',
    zoneId: 'zone-a',
    replicaCount: 1,
    accounts: accounts.map((name) => ({
      name,
      permissions: { read: ['dev'], write: ['ops'] },
      apiServerHost: 'https://127.0.0.1:6443',
      kubernetesVersion: 'v1.33.1',
    })),
  };
}

/** A status the server ended a call with. */
export function isServiceError(value: unknown): value is ServiceError {
  return value instanceof Error && 'code' in value && typeof value.code === 'number';
}

/**
 * A test client in the agent's seat: opens the session, collects what comes down, reports results,
 * publishes cache batches.
 */
export class TestAgent {
  readonly received: ControlMessage__Output[] = [];
  readonly #proto = loadContract().proto.orchagent.v1;
  readonly #address: string;
  readonly #creds: ChannelCredentials;
  readonly #metadata: () => Metadata;
  readonly #session;
  readonly #caching;
  readonly #results;
  #waiters: Array<() => void> = [];
  #sessionCall: ReturnType<TestAgent['openSession']> | undefined;
  /** Resolves with the status the session ended with. */
  sessionEnded: Promise<{ code: number; details: string }> | undefined;

  constructor(
    address: string,
    options: { token?: string; creds?: ChannelCredentials; serverName?: string } = {},
  ) {
    this.#address = address;
    this.#creds = options.creds ?? credentials.createInsecure();
    this.#metadata = () => (options.token === undefined ? new Metadata() : bearer(options.token));
    const channelOptions =
      options.serverName === undefined ? {} : { 'grpc.ssl_target_name_override': options.serverName };
    this.#session = new this.#proto.AgentSession(address, this.#creds, channelOptions);
    this.#caching = new this.#proto.Caching(address, this.#creds, channelOptions);
    this.#results = new this.#proto.OperationResults(address, this.#creds, channelOptions);
  }

  get address(): string {
    return this.#address;
  }

  openSession() {
    const call = this.#session.Connect(this.#metadata());
    this.sessionEnded = new Promise((resolve) => {
      call.on('status', (s) => resolve({ code: s.code, details: s.details }));
    });
    call.on('error', () => undefined);
    call.on('data', (message: ControlMessage__Output) => {
      this.received.push(message);
      for (const wake of this.#waiters.splice(0)) wake();
    });
    return call;
  }

  /** Opens the session and says hello; resolves with the first message down (registered). */
  async connect(hello: Hello): Promise<ControlMessage__Output> {
    this.#sessionCall = this.openSession();
    this.send({ hello });
    return this.next((m) => m.message === 'registered');
  }

  send(message: AgentMessage): void {
    this.#sessionCall?.write(message);
  }

  /** The first received message (past or future) matching `match`, within `timeoutMs`. */
  async next(
    match: (m: ControlMessage__Output) => boolean,
    timeoutMs = 5000,
  ): Promise<ControlMessage__Output> {
    const deadline = Date.now() + timeoutMs;
    for (;;) {
      const found = this.received.find(match);
      if (found !== undefined) return found;
      const left = deadline - Date.now();
      if (left <= 0) throw new Error(`no matching message within ${timeoutMs} ms`);
      await new Promise<void>((resolve) => {
        const timer = setTimeout(resolve, left);
        this.#waiters.push(() => {
          clearTimeout(timer);
          resolve();
        });
      });
    }
  }

  report(result: OperationResult): Promise<{ duplicate: boolean }> {
    return new Promise((resolve, reject) => {
      this.#results.Report(result, this.#metadata(), (error, ack) => {
        if (error || ack === undefined) reject(error);
        else resolve(ack);
      });
    });
  }

  /** Sends the batches on one Publish stream and resolves with the acknowledgements, once it ends. */
  publish(batches: CacheBatch[]): Promise<CacheAck__Output[]> {
    return new Promise((resolve, reject) => {
      const acks: CacheAck__Output[] = [];
      const call = this.#caching.Publish(this.#metadata());
      call.on('data', (ack: CacheAck__Output) => acks.push(ack));
      call.on('error', reject);
      call.on('end', () => resolve(acks));
      for (const batch of batches) call.write(batch);
      call.end();
    });
  }

  resumeVersions(accounts: string[], maxAgeMs = 0) {
    return new Promise<GetResumeVersionsResponse__Output>((resolve, reject) => {
      this.#caching.GetResumeVersions({ accounts, maxAgeMs }, this.#metadata(), (error, response) => {
        if (error || response === undefined) reject(error);
        else resolve(response);
      });
    });
  }

  /** Half-closes the session (a clean goodbye). */
  endSession(): void {
    this.#sessionCall?.end();
  }

  /** Drops the session abruptly, as a killed agent would. */
  cancelSession(): void {
    this.#sessionCall?.cancel();
  }

  close(): void {
    this.#sessionCall?.cancel();
    this.#session.close();
    this.#caching.close();
    this.#results.close();
  }
}

/** The test agents a file connects as agent-1, closed together (call `closeAll` after each test). */
export class TestAgents {
  readonly #agents: TestAgent[] = [];

  /** A test agent connected to the control plane at `address`, registered with `accounts`. */
  async connect(address: string, accounts: string[]): Promise<TestAgent> {
    const agent = new TestAgent(address, { token: AGENT_TOKEN });
    this.#agents.push(agent);
    await agent.connect(helloFor('agent-1', accounts));
    return agent;
  }

  /** Closes `agent` with the others. */
  track(agent: TestAgent): TestAgent {
    this.#agents.push(agent);
    return agent;
  }

  closeAll(): void {
    for (const agent of this.#agents.splice(0)) agent.close();
  }
}

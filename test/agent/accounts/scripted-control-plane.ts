// A control plane the test scripts, on a real gRPC socket: it registers each session with the cache
// directives the test sets, records hello, account_status, cache batches and operation results, and
// sends down whatever the test says (add_accounts, delete_accounts, cache_directives, operations).
// cloudctl decides what to assign; these tests check what the agent does with an assignment, so
// they say exactly what goes down instead of driving cloudctl's placement into it.
import {
  Server,
  ServerCredentials,
  type ServerDuplexStream,
  type ServerUnaryCall,
  type sendUnaryData,
} from '@grpc/grpc-js';
import {
  type AccountStatus__Output,
  type AgentMessage__Output,
  type CacheBatch__Output,
  type ControlMessage,
  type Hello__Output,
  type OperationResult__Output,
  serviceDefinitions,
} from '../../../src/proto/index.ts';
import { msUntil } from '../in-process-agent.ts';

type Directive = { account: string; enabled: boolean; kinds: string[]; omitKinds: string[] };

export class ScriptedControlPlane {
  readonly hellos: Hello__Output[] = [];
  readonly statuses: AccountStatus__Output[] = [];
  readonly batches: CacheBatch__Output[] = [];
  readonly results: OperationResult__Output[] = [];
  /** Every message sent down, in order, for checking that nothing carries a secret. */
  readonly sent: ControlMessage[] = [];
  /** The directives `registered` carries; the test changes them between sessions. */
  registeredCache: Directive[] = [];
  /** Sent right after `registered` at every session (what cloudctl re-sends at registration). */
  onRegistered: () => ControlMessage[] = () => [];
  readonly #server = new Server();
  #session: ServerDuplexStream<AgentMessage__Output, ControlMessage> | undefined;
  #sessions = 0;
  address = '';

  static async start(): Promise<ScriptedControlPlane> {
    const cp = new ScriptedControlPlane();
    await cp.#listen();
    return cp;
  }

  async #listen(): Promise<void> {
    const services = serviceDefinitions();
    this.#server.addService(services.session, {
      Connect: (call: ServerDuplexStream<AgentMessage__Output, ControlMessage>) => this.#connect(call),
    });
    this.#server.addService(services.caching, {
      Publish: (call: ServerDuplexStream<CacheBatch__Output, { sequence: string }>) => {
        call.on('data', (batch: CacheBatch__Output) => {
          this.batches.push(batch);
          call.write({ sequence: batch.sequence });
        });
        call.on('end', () => call.end());
        call.on('error', () => undefined);
      },
      GetResumeVersions: (_call: ServerUnaryCall<unknown, unknown>, done: sendUnaryData<unknown>) =>
        done(null, { versions: [] }),
    });
    this.#server.addService(services.operationResults, {
      Report: (
        call: ServerUnaryCall<OperationResult__Output, unknown>,
        done: sendUnaryData<{ duplicate: boolean }>,
      ) => {
        this.results.push(call.request);
        done(null, { duplicate: false });
      },
    });
    const port = await new Promise<number>((resolve, reject) =>
      this.#server.bindAsync('127.0.0.1:0', ServerCredentials.createInsecure(), (error, bound) =>
        error === null ? resolve(bound) : reject(error),
      ),
    );
    this.address = `127.0.0.1:${port}`;
  }

  #connect(call: ServerDuplexStream<AgentMessage__Output, ControlMessage>): void {
    call.on('error', () => undefined);
    call.on('data', (message: AgentMessage__Output) => {
      if (message.message === 'hello' && message.hello != null) {
        this.hellos.push(message.hello);
        this.#session = call;
        this.#sessions++;
        this.send({ registered: { sessionId: `s${this.#sessions}`, cache: this.registeredCache } });
        for (const follow of this.onRegistered()) this.send(follow);
      } else if (message.message === 'accountStatus' && message.accountStatus != null) {
        this.statuses.push(message.accountStatus);
      } else if (message.message === 'heartbeat' && message.heartbeat != null) {
        call.write({ heartbeat: { sequence: message.heartbeat.sequence } });
      }
    });
    call.on('end', () => call.end());
  }

  /** Sessions registered so far. */
  get sessions(): number {
    return this.#sessions;
  }

  send(message: ControlMessage): void {
    if (this.#session === undefined) throw new Error('no agent session');
    this.sent.push(message);
    this.#session.write(message);
  }

  assign(
    accounts: Array<{
      name: string;
      definition: Record<string, unknown>;
      cache?: Omit<Directive, 'account'>;
    }>,
  ): void {
    this.send({ addAccounts: { accounts: accounts.map(assignment) } });
  }

  /** Ends the current session from the control plane's side; the agent reconnects. */
  endSession(): void {
    this.#session?.end();
    this.#session = undefined;
  }

  /** The latest account_status of `account` once `match` holds for it. */
  async status(
    account: string,
    match: (s: AccountStatus__Output) => boolean,
    limitMs = 20_000,
  ): Promise<AccountStatus__Output> {
    let found: AccountStatus__Output | undefined;
    await msUntil(
      () => {
        found = this.statuses.filter((s) => s.account === account).at(-1);
        return found !== undefined && match(found);
      },
      limitMs,
      `account_status of ${account}`,
    );
    if (found === undefined) throw new Error('unreachable');
    return found;
  }

  /** Resource events received for `account`, in order. */
  events(account: string): Array<{ kind: string; namespace: string; name: string; type: string }> {
    return this.batches.flatMap((b) =>
      b.items.flatMap((item) =>
        item.event != null && item.event.account === account
          ? [
              {
                kind: item.event.gvk?.kind ?? '',
                namespace: item.event.namespace,
                name: item.event.name,
                type: item.event.type,
              },
            ]
          : [],
      ),
    );
  }

  /** Snapshot begins (lists) received for `account`. */
  snapshots(account: string): number {
    return this.batches
      .flatMap((b) => b.items)
      .filter((item) => item.snapshotBegin?.scope?.account === account).length;
  }

  close(): Promise<void> {
    this.#server.forceShutdown();
    return Promise.resolve();
  }
}

export function assignment(account: {
  name: string;
  definition: Record<string, unknown>;
  cache?: Omit<Directive, 'account'>;
}) {
  return {
    name: account.name,
    definition: Buffer.from(JSON.stringify(account.definition)),
    ...(account.cache === undefined ? {} : { cache: { account: account.name, ...account.cache } }),
  };
}

// An operation whose result was produced but not acknowledged when the session broke is carried out
// once and completes once (issue 17). `cloudctl serve` and `orch-agent run` as real processes, the
// agent dialling cloudctl through a TCP proxy, the shared cluster. A task runs a Job whose pod cannot
// start until the test adds a node for it, so the operation is under way on the agent when the fault
// is set: the proxy silently drops what one side sends on the open connection, the Job finishes, and
// the connection is cut. Either the result never reached cloudctl (the agent must deliver it on its
// next session) or cloudctl recorded it and the acknowledgement was lost (the agent delivers it again
// and cloudctl must take it as a duplicate). Either way: one Job in the cluster, one send by cloudctl,
// one run on the agent, one completed task with one result.
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type ApiClient, apiClient } from '../cloudctl/http-client.ts';
import { type ApiClient as ClusterClient, sharedCluster, sharedClusterClient } from '../cluster/index.ts';
import { kwokNode } from '../cluster/kwok.ts';
import { TestSystem } from '../support/processes.ts';
import { startTcpFaultProxy, type TcpFaultProxy } from '../support/tcp-fault-proxy.ts';

const NS = 'unacked-result';
const ACCOUNT = 'unacked-result';
const TOKENS = { agent: 'agent-token-unacked-71f0', ops: 'ops-token-unacked-2b9d' };
/** A label no node carries until the test adds one: the Job's pod waits, so the operation runs on. */
const HOLD_LABEL = 'orch-agent-test/unacked-hold';
/** The target of issue 17; the assertion allows three times as much on a loaded machine. */
const TARGET_MS = 10_000;

let dir: string;
let cluster: ClusterClient;
let system: TestSystem;
/** Between the agent and cloudctl's gRPC endpoint. */
let proxy: TcpFaultProxy;
let api: ApiClient;
const nodes: string[] = [];

interface OperationRecord {
  id: string;
  type: string;
  outcome?: string;
}

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'unacked-result-'));
  cluster = sharedClusterClient();
  system = await TestSystem.startCloudctl({
    dir,
    agent: { id: 'unacked-result', token: TOKENS.agent },
    logLevel: 'debug',
    users: [{ name: 'olga', token: TOKENS.ops, roles: ['ops'] }],
    account: {
      name: ACCOUNT,
      kubeconfig: sharedCluster().kubeconfigPath,
      namespaces: [NS],
      kinds: ['job'],
      read: ['ops'],
      write: ['ops'],
    },
  });
  api = apiClient(system.url, TOKENS.ops);
  const [host = '', port = ''] = system.grpcAddress.split(':');
  proxy = await startTcpFaultProxy({ host, port: Number(port) });
  await cluster.request('POST', '/api/v1/namespaces', {
    body: { apiVersion: 'v1', kind: 'Namespace', metadata: { name: NS } },
  });
  await system.startAgent({ dial: proxy.address });
}, 120_000);

afterAll(async () => {
  await system?.stop();
  await proxy?.close();
  for (const node of nodes) await cluster?.request('DELETE', `/api/v1/nodes/${node}`);
  await cluster?.request('DELETE', `/api/v1/namespaces/${NS}`);
  await cluster?.close();
  await rm(dir, { recursive: true, force: true });
});

function heldJob(prefix: string, hold: string) {
  return {
    apiVersion: 'batch/v1',
    kind: 'Job',
    metadata: { generateName: `${prefix}-`, namespace: NS },
    spec: {
      backoffLimit: 0,
      template: {
        spec: {
          restartPolicy: 'Never',
          nodeSelector: { [HOLD_LABEL]: hold },
          containers: [{ name: 'work', image: 'registry.example/work:1' }],
        },
      },
    },
  };
}

/** Adds a node carrying the hold label: the held Job's pod runs, and kwok completes it. */
async function release(hold: string): Promise<void> {
  const node = `unacked-${hold}`;
  nodes.push(node);
  const withLabel = kwokNode(node) as { metadata: { labels: Record<string, string> } };
  withLabel.metadata.labels[HOLD_LABEL] = hold;
  const created = await cluster.request('POST', '/api/v1/nodes', { body: withLabel });
  expect(created.status, created.text).toBe(201);
}

async function jobsNamed(prefix: string): Promise<string[]> {
  const listed = await cluster.request('GET', `/apis/batch/v1/namespaces/${NS}/jobs`);
  const items = (listed.json as { items: Array<{ metadata: { name: string } }> }).items;
  return items.map((item) => item.metadata.name).filter((name) => name.startsWith(`${prefix}-`));
}

/** The agent's journal of operations it ran (its health server's `/operations`). */
async function agentRuns(): Promise<OperationRecord[]> {
  const response = await fetch(`${system.agentUrl}/operations`);
  const body = (await response.json()) as { inFlight: OperationRecord[]; recent: OperationRecord[] };
  return [...body.inFlight, ...body.recent];
}

async function task(id: string) {
  const answer = await api.get(`/task/${id}`);
  expect(answer.status).toBe(200);
  return answer.body;
}

async function taskCompleted(id: string, timeoutMs: number) {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const body = await task(id);
    if (body.status.completed) return body;
    if (Date.now() > deadline) throw new Error(`task ${id} not completed: ${JSON.stringify(body)}`);
    await sleep(100);
  }
}

/** Log lines (JSON) of `output` with message `msg` about operation `id`. */
function linesAbout(output: string, msg: RegExp, id: string): number {
  let count = 0;
  for (const line of output.split('\n')) {
    if (!line.startsWith('{')) continue;
    const entry = JSON.parse(line) as { msg?: string; operationId?: string };
    if (entry.operationId === id && msg.test(entry.msg ?? '')) count++;
  }
  return count;
}

/**
 * Starts a held Job through POST /ops/runJob and waits until the agent runs it; returns the task id
 * and the agent's operation id.
 */
async function startHeldJob(prefix: string): Promise<{ taskId: string; operationId: string }> {
  const before = new Set((await agentRuns()).map((r) => r.id));
  const started = await api.post('/ops/runJob', { account: ACCOUNT, manifest: heldJob(prefix, prefix) });
  expect(started.status, JSON.stringify(started.body)).toBe(200);
  await expect.poll(() => jobsNamed(prefix), { timeout: 30_000 }).toHaveLength(1);
  const run = (await agentRuns()).find((r) => !before.has(r.id) && r.type === 'runJob');
  if (run === undefined) throw new Error('the agent created the Job but shows no runJob operation');
  return { taskId: started.body.id, operationId: run.id };
}

/** Waits until the agent has the operation's result: it finished running. */
async function resultProduced(operationId: string): Promise<void> {
  await expect
    .poll(async () => (await agentRuns()).find((r) => r.id === operationId)?.outcome, { timeout: 60_000 })
    .toBe('succeeded');
}

/** The figures that say "once": one Job, one send, one run, one completed task with one result. */
async function expectDoneOnce(prefix: string, taskId: string, operationId: string): Promise<void> {
  const done = await task(taskId);
  expect(done.status.failed, JSON.stringify(done.history)).toBe(false);
  expect(done.resultObjects).toHaveLength(1);
  expect(done.resultObjects[0]).toMatchObject({ jobOutcome: 'Complete' });
  const succeeded = done.history.filter((h: { status: string }) => h.status === 'runJob succeeded');
  expect(succeeded).toHaveLength(1);
  expect(await jobsNamed(prefix)).toHaveLength(1);
  expect((await agentRuns()).filter((r) => r.id === operationId)).toHaveLength(1);
  expect(linesAbout(system.cloudctl.output(), /^operation sent$/, operationId)).toBe(1);
}

describe('a result produced but not acknowledged when the session broke', () => {
  it('that never reached cloudctl is delivered on the next session: the operation ran once, the task completed once', async () => {
    const { taskId, operationId } = await startHeldJob('lost-result');
    const connectionsBefore = proxy.connections;
    // From here on, what the agent sends on its connection is lost: its result among it.
    proxy.blackhole('upstream');
    await release('lost-result');
    await resultProduced(operationId);
    expect((await task(taskId)).status.completed).toBe(false);

    const cutAt = Date.now();
    proxy.cut(0);
    await taskCompleted(taskId, 3 * TARGET_MS);
    const doneMs = Date.now() - cutAt;
    expect(proxy.connections).toBeGreaterThan(connectionsBefore);
    await expectDoneOnce('lost-result', taskId, operationId);
    console.info(
      `result lost with the session: the task completed ${doneMs} ms after the cut (target ${TARGET_MS} ms)`,
    );
    expect(doneMs).toBeLessThan(3 * TARGET_MS);
  }, 120_000);

  it('whose acknowledgement was lost is delivered again and taken as a duplicate: the task completed once', async () => {
    const { taskId, operationId } = await startHeldJob('lost-ack');
    // From here on, what cloudctl sends on the agent's connection is lost: the acknowledgement among it.
    proxy.blackhole('downstream');
    await release('lost-ack');
    await resultProduced(operationId);
    // cloudctl has the result and completes the task; the agent never heard that it arrived.
    await taskCompleted(taskId, 3 * TARGET_MS);
    expect(linesAbout(system.agent?.output() ?? '', /^operation result delivered/, operationId)).toBe(0);

    const cutAt = Date.now();
    proxy.cut(0);
    await expect
      .poll(() => linesAbout(system.agent?.output() ?? '', /^operation result delivered/, operationId), {
        timeout: 3 * TARGET_MS,
      })
      .toBe(1);
    const redeliveredMs = Date.now() - cutAt;
    await expectDoneOnce('lost-ack', taskId, operationId);
    console.info(
      `acknowledgement lost with the session: the result was delivered again ${redeliveredMs} ms after the cut`,
    );
  }, 120_000);
});

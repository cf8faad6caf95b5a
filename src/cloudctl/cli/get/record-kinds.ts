// cloudctl's own records: tasks (GET /task), deployments (GET /deployments), accounts
// (GET /credentials) and agents with the accounts they cache (GET /cache/introspection). Tasks and
// deployments follow their GET /watch events under --watch.
import { z } from 'zod';
import { ageOf } from './age.ts';
import { defineKind } from './show-kind.ts';

const taskSchema = z.looseObject({
  id: z.string(),
  user: z.string(),
  startTimeMs: z.number(),
  status: z.looseObject({
    phase: z.string(),
    status: z.string(),
    completed: z.boolean(),
    failed: z.boolean(),
  }),
});
type Task = z.infer<typeof taskSchema>;

const taskState = (t: Task) => (t.status.failed ? 'FAILED' : t.status.completed ? 'SUCCEEDED' : 'RUNNING');

export const tasksKind = defineKind<Task>({
  name: 'tasks',
  singular: 'task',
  scopes: [],
  list: (client) => client.get('/task', z.array(taskSchema)),
  nameOf: (t) => t.id,
  columns: [
    { header: 'ID', value: (t) => t.id },
    { header: 'STATE', value: taskState },
    { header: 'USER', value: (t) => t.user },
    { header: 'AGE', value: (t, now) => ageOf(t.startTimeMs, now) },
    { header: 'STATUS', wide: true, value: (t) => `${t.status.phase}: ${t.status.status}` },
  ],
  watch: {
    query: { events: 'task' },
    row: (event, data) => {
      if (event !== 'task') return undefined;
      const parsed = z.looseObject({ task: taskSchema }).safeParse(data);
      return parsed.success ? parsed.data.task : undefined;
    },
  },
});

const deploymentSchema = z.looseObject({
  id: z.string(),
  application: z.string(),
  status: z.string(),
  createdBy: z.string(),
  createdAt: z.string(),
  targets: z.array(z.looseObject({ name: z.string(), account: z.string(), status: z.string() })),
});
type Deployment = z.infer<typeof deploymentSchema>;

export const deploymentsKind = defineKind<Deployment>({
  name: 'deployments',
  singular: 'deployment',
  scopes: ['account', 'app'],
  list: async (client, filter) =>
    (await client.get('/deployments', z.array(deploymentSchema), { limit: '500' })).filter(
      (d) =>
        (filter.app === undefined || d.application === filter.app) &&
        (filter.account === undefined || d.targets.some((t) => t.account === filter.account)),
    ),
  nameOf: (d) => d.id,
  columns: [
    { header: 'ID', value: (d) => d.id },
    { header: 'APPLICATION', value: (d) => d.application },
    { header: 'STATUS', value: (d) => d.status },
    { header: 'TARGETS', value: (d) => d.targets.map((t) => `${t.name}:${t.status}`).join(',') },
    { header: 'AGE', value: (d, now) => ageOf(Date.parse(d.createdAt), now) },
    { header: 'CREATED BY', wide: true, value: (d) => d.createdBy },
  ],
  watch: {
    query: { events: 'deployment' },
    row: (event, data) => {
      if (event !== 'deployment') return undefined;
      const parsed = z.looseObject({ deployment: deploymentSchema }).safeParse(data);
      return parsed.success ? parsed.data.deployment : undefined;
    },
  },
});

const accountSchema = z.looseObject({
  name: z.string(),
  source: z.string(),
  environment: z.string(),
  permissions: z.looseObject({ READ: z.array(z.string()), WRITE: z.array(z.string()) }),
});
type Account = z.infer<typeof accountSchema>;

export const accountsKind = defineKind<Account>({
  name: 'accounts',
  singular: 'account',
  scopes: [],
  list: (client) => client.get('/credentials', z.array(accountSchema)),
  nameOf: (a) => a.name,
  columns: [
    { header: 'NAME', value: (a) => a.name },
    { header: 'SOURCE', value: (a) => a.source },
    { header: 'READ', value: (a) => a.permissions.READ.join(',') },
    { header: 'WRITE', value: (a) => a.permissions.WRITE.join(',') },
    { header: 'ENVIRONMENT', wide: true, value: (a) => a.environment },
  ],
});

const agentAccountSchema = z.looseObject({
  agentId: z.string(),
  account: z.string(),
  zoneId: z.string(),
  connected: z.boolean(),
  status: z.string(),
  totalObjects: z.int(),
  lastSyncMs: z.number().nullable(),
  eventsPerSecond: z.number(),
  kinds: z.array(z.looseObject({ kind: z.string(), count: z.int() })),
});
type AgentAccount = z.infer<typeof agentAccountSchema>;

export const agentsKind = defineKind<AgentAccount>({
  name: 'agents',
  singular: 'agent',
  scopes: ['account'],
  list: (client) => client.get('/cache/introspection', z.array(agentAccountSchema)),
  nameOf: (a) => a.agentId,
  accountOf: (a) => a.account,
  columns: [
    { header: 'AGENT', value: (a) => (a.agentId === '' ? '-' : a.agentId) },
    { header: 'ACCOUNT', value: (a) => a.account },
    { header: 'CONNECTED', value: (a) => (a.connected ? 'yes' : 'no') },
    { header: 'STATUS', value: (a) => a.status },
    { header: 'OBJECTS', value: (a) => String(a.totalObjects) },
    { header: 'LAST SYNC', value: (a, now) => (a.lastSyncMs === null ? '-' : ageOf(a.lastSyncMs, now)) },
    { header: 'ZONE', wide: true, value: (a) => a.zoneId },
    { header: 'EVENTS/S', wide: true, value: (a) => a.eventsPerSecond.toFixed(1) },
    { header: 'KINDS', wide: true, value: (a) => a.kinds.map((k) => `${k.kind}:${k.count}`).join(',') },
  ],
});

// `cloudctl plan`, `apply-plan` and `deploy -f FILE --plan` as a person runs them: the binary as a
// process against `cloudctl serve` and `orch-agent run` on the shared cluster. A Deployment `web`
// (image :1) and a Secret `db` exist before the tests. A plan prints the image change as kubectl diff
// would and changes nothing; apply-plan applies exactly it and follows the task; a second apply, an
// apply after a hand edit and an apply after the plan expired exit 1 with the server's reason; a
// Secret's values never reach the output; colour only on a terminal. Plans last a minute here, so
// none expires under a test on a busy machine; the expired one asks the API for two seconds.
import { execFile } from 'node:child_process';
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { dump } from 'js-yaml';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { z } from 'zod';
import { sharedCluster } from '../../cluster/index.ts';
import { type CloudctlRun, runCloudctl } from '../../support/cloudctl-run.ts';
import { useSystem } from '../../support/system-fixture.ts';

const NAME = 'cli-plans';
const TOKENS = {
  agent: 'agent-token-cli-plans-3e81',
  dev: 'dev-token-cli-plans-72c4',
  reader: 'reader-cli-plans-5d09',
};
const EXPIRE_AFTER_SECONDS = 60;
const SHORT_EXPIRY_SECONDS = 2;
const SECRET_BEFORE = 'hunter2-before-plan';
const SECRET_AFTER = 'swordfish-after-plan';
const BIN = join(import.meta.dirname, '../../../bin/cloudctl.js');

const fixture = useSystem({
  name: NAME,
  agentToken: TOKENS.agent,
  users: [
    { name: 'dana', token: TOKENS.dev, roles: ['dev'] },
    { name: 'rhea', token: TOKENS.reader, roles: ['readers'] },
  ],
  kinds: ['deployment', 'replicaSet', 'pod', 'secret'],
  read: ['dev', 'readers'],
  write: ['dev'],
  config: `plans:\n  expireAfterSeconds: ${EXPIRE_AFTER_SECONDS}\n`,
});

let home = '';
const asDev = () => ({ CLOUDCTL_URL: fixture.system.url, CLOUDCTL_TOKEN: TOKENS.dev });
const cloudctl = (args: string[], env: Record<string, string> = asDev(), input?: string) =>
  runCloudctl(args, { home, env, ...(input === undefined ? {} : { input }) });

function deployment(image: string) {
  return {
    apiVersion: 'apps/v1',
    kind: 'Deployment',
    metadata: { name: 'web', namespace: NAME, annotations: { 'moniker.spinnaker.io/application': 'web' } },
    spec: {
      replicas: 1,
      selector: { matchLabels: { app: 'web' } },
      template: {
        metadata: { labels: { app: 'web' } },
        spec: { nodeName: sharedCluster().fakeKubelet.nodeName, containers: [{ name: 'web', image }] },
      },
    },
  };
}

function secret(password: string) {
  return {
    apiVersion: 'v1',
    kind: 'Secret',
    // Unversioned, so a new value updates `db` in place (a versioned Secret's change is a new db-vNNN).
    metadata: { name: 'db', namespace: NAME, annotations: { 'strategy.spinnaker.io/versioned': 'false' } },
    stringData: { password },
  };
}

/** The body of POST /ops: one deployManifest of these manifests. */
const deployOps = (...manifests: object[]) => [
  { deployManifest: { account: NAME, moniker: { app: 'web' }, manifests } },
];

const liveSchema = z.object({
  metadata: z.object({ resourceVersion: z.string() }),
  spec: z.object({
    template: z.object({ spec: z.object({ containers: z.array(z.object({ image: z.string() })) }) }),
  }),
});

const rolloutSchema = z.object({
  metadata: z.object({ generation: z.int() }),
  status: z.looseObject({}).default({}),
});

async function liveWeb() {
  const answer = await fixture.cluster.get(`/apis/apps/v1/namespaces/${NAME}/deployments/web`);
  const live = liveSchema.parse(answer.json);
  return {
    resourceVersion: live.metadata.resourceVersion,
    image: live.spec.template.spec.containers[0]?.image,
  };
}

/** The plan id the output names, with the apply command after it. */
function planId(run: CloudctlRun): string {
  const id = /^Plan (\S+), until \S+\. To apply exactly this plan:$/m.exec(run.stdout)?.[1];
  if (id === undefined) throw new Error(`no plan id in:\n${run.stdout}\n${run.stderr}`);
  expect(run.stdout).toContain(`\n  cloudctl apply-plan ${id}\n`);
  return id;
}

async function opsFile(name: string, body: unknown): Promise<string> {
  const file = join(home, name);
  await writeFile(file, dump(body));
  return file;
}

beforeAll(async () => {
  home = await mkdtemp(join(tmpdir(), `${NAME}-home-`));
  for (const [path, body] of [
    [`/apis/apps/v1/namespaces/${NAME}/deployments`, deployment('registry.example/web:1')],
    [`/api/v1/namespaces/${NAME}/secrets`, secret(SECRET_BEFORE)],
  ] as const) {
    const created = await fixture.cluster.request('POST', path, { body });
    if (created.status !== 201) throw new Error(`create ${path}: ${created.status} ${created.text}`);
  }
  // The controllers write the Deployment's status until its rollout completes; only then does an
  // unchanged resourceVersion say that nothing else wrote it.
  await vi.waitFor(
    async () => {
      const answer = await fixture.cluster.get(`/apis/apps/v1/namespaces/${NAME}/deployments/web`);
      const { metadata, status } = rolloutSchema.parse(answer.json);
      expect(status).toMatchObject({
        observedGeneration: metadata.generation,
        updatedReplicas: 1,
        availableReplicas: 1,
      });
    },
    { timeout: 60_000, interval: 500 },
  );
}, 120_000);

afterAll(async () => {
  if (home !== '') await rm(home, { recursive: true, force: true });
});

describe('cloudctl plan and apply-plan', () => {
  it('plan -f FILE prints the image change as - and + lines, the plan id and how to apply it, and changes nothing', async () => {
    const before = await liveWeb();
    const run = await cloudctl([
      'plan',
      '-f',
      await opsFile('image.yaml', deployOps(deployment('registry.example/web:2'))),
    ]);
    expect(run.stderr).toBe('');
    expect(run.code).toBe(0);
    expect(run.stdout).toMatch(new RegExp(`^update Deployment ${NAME}/web \\(account ${NAME}\\)$`, 'm'));
    expect(run.stdout).toContain(
      [
        '  - spec.template.spec.containers[0].image: registry.example/web:1',
        '  + spec.template.spec.containers[0].image: registry.example/web:2',
      ].join('\n'),
    );
    expect(run.stdout).toMatch(/^Plan: 0 to create, 1 to update, 0 unchanged, 0 to delete\.$/m);
    planId(run);
    // Not a terminal: no colour.
    expect(run.stdout).not.toContain('\u001b[');
    expect(await liveWeb()).toEqual(before);
  });

  it('apply-plan applies exactly the plan read from stdin and follows its task; a second apply exits 1 naming that task', async () => {
    const planned = await cloudctl(
      ['plan', '-f', '-'],
      asDev(),
      JSON.stringify(deployOps(deployment('registry.example/web:2'))),
    );
    expect(planned.code).toBe(0);
    const id = planId(planned);
    const applied = await cloudctl(['apply-plan', id]);
    expect(applied.stderr).toBe('');
    const task = new RegExp(`^plan ${id} applied: ${fixture.system.url}/task/(\\S+)$`, 'm').exec(
      applied.stdout,
    )?.[1];
    expect(task, applied.stdout).toBeDefined();
    expect(applied.stdout).toMatch(new RegExp(`^task ${task} SUCCEEDED: `, 'm'));
    expect(applied.code).toBe(0);
    expect((await liveWeb()).image).toBe('registry.example/web:2');

    const again = await cloudctl(['apply-plan', id]);
    expect(again.code).toBe(1);
    expect(again.stdout).toBe('');
    expect(again.stderr).toMatch(new RegExp(`^cloudctl: plan ${id} was not applied \\(409\\): .*${task}`));
  });

  it('apply-plan after a hand edit of a planned object exits 1 naming it, and writes nothing', async () => {
    const planned = await cloudctl([
      'plan',
      '-f',
      await opsFile('edit.yaml', deployOps(deployment('registry.example/web:3'))),
    ]);
    const id = planId(planned);
    // As `kubectl edit` would: another writer changes the object after the plan saw it.
    const edited = await fixture.cluster.request(
      'PATCH',
      `/apis/apps/v1/namespaces/${NAME}/deployments/web`,
      {
        body: { metadata: { labels: { edited: 'by-hand' } } },
        contentType: 'application/merge-patch+json',
      },
    );
    expect(edited.status).toBe(200);
    const afterEdit = await liveWeb();
    const run = await cloudctl(['apply-plan', id]);
    expect(run.code).toBe(1);
    expect(run.stderr).toMatch(new RegExp(`^cloudctl: plan ${id} was not applied \\(409\\): .*web`));
    expect(await liveWeb()).toEqual(afterEdit);
    expect(afterEdit.image).toBe('registry.example/web:2');
  });

  it("shows a Secret's change as (hidden) and never its values", async () => {
    const run = await cloudctl(['plan', '-f', await opsFile('secret.yaml', deployOps(secret(SECRET_AFTER)))]);
    expect(run.code).toBe(0);
    expect(run.stdout).toContain(`update Secret ${NAME}/db (account ${NAME})`);
    expect(run.stdout).toMatch(/^ {2}- \S*password: \(hidden\)\n {2}\+ \S*password: \(hidden\)$/m);
    for (const value of [SECRET_BEFORE, SECRET_AFTER]) {
      expect(run.stdout + run.stderr).not.toContain(value);
      expect(run.stdout + run.stderr).not.toContain(Buffer.from(value).toString('base64'));
    }
  });

  it('colours the diff on a terminal (red -, green +), and not with NO_COLOR set', async () => {
    const file = await opsFile('colour.yaml', deployOps(deployment('registry.example/web:4')));
    const onTerminal = (env: Record<string, string>) =>
      new Promise<string>((resolve, reject) => {
        // script(1) runs the command on a pseudo-terminal, as a person's shell would.
        const command = [process.execPath, BIN, 'plan', '-f', file].map((w) => `'${w}'`).join(' ');
        execFile(
          'script',
          ['-qec', command, '/dev/null'],
          { env: { PATH: process.env.PATH ?? '', HOME: home, ...asDev(), ...env } },
          (error, stdout) => (error === null ? resolve(stdout) : reject(error)),
        );
      });
    const coloured = await onTerminal({});
    expect(coloured).toContain(
      '\u001b[31m- spec.template.spec.containers[0].image: registry.example/web:2\u001b[0m',
    );
    expect(coloured).toContain(
      '\u001b[32m+ spec.template.spec.containers[0].image: registry.example/web:4\u001b[0m',
    );
    const plain = await onTerminal({ NO_COLOR: '1' });
    expect(plain).toContain('- spec.template.spec.containers[0].image: registry.example/web:2');
    expect(plain).not.toContain('\u001b[3');
  });

  it('a READ-only user may plan but apply-plan is forbidden (403); a refused request exits 1 with its message', async () => {
    const reader = { CLOUDCTL_URL: fixture.system.url, CLOUDCTL_TOKEN: TOKENS.reader };
    const planned = await cloudctl(
      ['plan', '-f', await opsFile('reader.yaml', deployOps(deployment('registry.example/web:5')))],
      reader,
    );
    expect(planned.code).toBe(0);
    const denied = await cloudctl(['apply-plan', planId(planned)], reader);
    expect(denied).toMatchObject({ code: 1, stdout: '' });
    expect(denied.stderr).toMatch(/^cloudctl: forbidden \(403\): /);

    const unknown = await cloudctl(['plan', '-f', await opsFile('unknown.yaml', [{ launchRocket: {} }])]);
    expect(unknown).toMatchObject({ code: 1, stdout: '' });
    expect(unknown.stderr).toMatch(
      /failed \(400\): body\[0\]\.launchRocket: unknown operation 'launchRocket'/,
    );
    const missing = await cloudctl(['apply-plan', 'no-such-plan']);
    expect(missing.code).toBe(1);
    expect(missing.stderr).toMatch(/^cloudctl: not found \(404\): /);
  });

  it('apply-plan of an expired plan exits 1 saying so and to plan again, and writes nothing', async () => {
    // The CLI plans for plans.expireAfterSeconds; a plan of its own expiry, asked of the API, expires
    // without the test waiting a minute for it.
    const made = await fetch(`${fixture.system.url}/plans?expireAfterSeconds=${SHORT_EXPIRY_SECONDS}`, {
      method: 'POST',
      headers: { authorization: `Bearer ${TOKENS.dev}`, 'content-type': 'application/json' },
      body: JSON.stringify(deployOps(deployment('registry.example/web:6'))),
    });
    expect(made.status).toBe(201);
    const { id } = z.object({ id: z.string() }).parse(await made.json());
    const before = await liveWeb();
    await vi.waitFor(
      async () => {
        const answer = await fetch(`${fixture.system.url}/plans/${id}`, {
          headers: { authorization: `Bearer ${TOKENS.dev}` },
        });
        expect(((await answer.json()) as { state: string }).state).toBe('expired');
      },
      { timeout: (SHORT_EXPIRY_SECONDS + 30) * 1000, interval: 500 },
    );
    const run = await cloudctl(['apply-plan', id]);
    expect(run).toMatchObject({ code: 1, stdout: '' });
    expect(run.stderr).toMatch(new RegExp(`^cloudctl: plan ${id} expired \\(410\\): .*; plan again`));
    expect(await liveWeb()).toEqual(before);
  }, 120_000);

  it('deploy -f FILE --plan plans the deployment without starting it; apply-plan starts it and follows it to its verdict', async () => {
    const project = join(home, 'api');
    await mkdir(join(project, 'manifests'), { recursive: true });
    await writeFile(
      join(project, 'manifests', 'api.yaml'),
      dump({ ...deployment('registry.example/api:1'), metadata: { name: 'api' } }),
    );
    const file = join(project, 'deploy.yaml');
    await writeFile(
      file,
      dump({
        application: 'api',
        targets: { dev: { account: NAME, namespace: NAME, strategy: 'whole' } },
        strategies: { whole: { canary: { steps: [{ setWeight: { weight: 100 } }] } } },
        manifests: [{ path: 'manifests' }],
      }),
    );
    const planned = await cloudctl(['deploy', '-f', file, '--plan']);
    expect(planned.stderr).toBe('');
    expect(planned.code).toBe(0);
    expect(planned.stdout).toMatch(new RegExp(`^create \\S+ ${NAME}/api\\S* \\(account ${NAME}\\)$`, 'm'));
    expect(planned.stdout).toContain('  + spec.template.spec.containers[0].image: registry.example/api:1');
    const id = planId(planned);
    // Nothing started: no deployment in this system yet.
    const deployments = await fetch(`${fixture.system.url}/deployments`, {
      headers: { authorization: `Bearer ${TOKENS.dev}` },
    });
    expect(await deployments.json()).toEqual([]);

    const applied = await cloudctl(['apply-plan', id]);
    expect(applied.stderr).toBe('');
    expect(applied.stdout).toMatch(
      new RegExp(`^plan ${id} applied: ${fixture.system.url}/deployments/\\S+$`, 'm'),
    );
    expect(applied.stdout).toMatch(/^target dev: SUCCEEDED\ndeployment \S+ SUCCEEDED\n$/m);
    expect(applied.code).toBe(0);
  }, 120_000);
});

// Deployment files as their users meet them: a canary and a blue/green file load into typed
// deployments with their manifests read; every mistake is reported in one run at file:line:col and
// key path, with the nearest name where one was likely meant.
import { readFileSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { durationMs, parseDeploymentFile } from '../../../src/cloudctl/deployments/index.ts';
import { formatIssue } from '../../../src/lib/config-issue.ts';
import { DEPLOYMENT_YAML, DeploymentDir, SERVICE_YAML } from './deployment-files.ts';

const dir = new DeploymentDir();
beforeAll(() => {
  dir.write('manifests/potato-facts.yaml', `${DEPLOYMENT_YAML}---\n${SERVICE_YAML}`);
  dir.write('manifests/config/a.yaml', 'apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: a\n');
  dir.write('manifests/config/b.yml', 'apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: b\n');
  dir.write('manifests/config/notes.txt', 'not a manifest');
});
afterAll(() => dir.remove());

const CANARY = `version: v1
kind: kubernetes
application: potato-facts
targets:
  staging:
    account: staging-cluster
    namespace: potato-staging
    strategy: canary-gated
  prod:
    account: prod-cluster
    namespace: potato-prod
    strategy: canary-gated
    constraints:
      dependsOn: [staging]
      beforeDeployment:
        - pause:
            untilApproved: true
            requiresRoles: [release-managers]
        - runWebhook:
            name: ticket-open
            context:
              ticket: CHG-42
      afterDeployment:
        - pause:
            duration: 5
            unit: minutes
manifests:
  - path: manifests/potato-facts.yaml
strategies:
  canary-gated:
    canary:
      steps:
        - setWeight:
            weight: 25
        - runWebhook:
            name: smoke-tests
            context:
              suite: smoke
              retries: 3
        - setWeight:
            weight: 50
        - pause:
            duration: 30
            unit: seconds
        - pause:
            untilApproved: true
webhooks:
  - name: smoke-tests
    method: post
    uriTemplate: https://ci.example/repos/potato/dispatches
    networkMode: direct
    headers:
      - key: Authorization
        value: encrypted:env!n:CI_TOKEN
      - key: Content-Type
        value: application/json
    bodyTemplate:
      inline: >-
        {"suite": "{{context.suite}}", "retries": {{context.retries}},
        "callbackUri": "{{vendor.callbackUri}}/callback"}
  - name: ticket-open
    method: GET
    uriTemplate: https://tickets.internal/{{context.ticket}}?callback={{vendor.callbackUri}}/callback
    networkMode: remoteNetworkAgent
    agentIdentifier: prod-agent
    retryCount: 2
    timeout:
      duration: 2
      unit: hours
`;

describe('a canary deployment file', () => {
  it('loads with its targets, steps, webhooks (defaults filled) and manifests', async () => {
    const loaded = await dir.load('canary.yaml', CANARY);
    const { deployment } = loaded;
    expect(deployment.application).toBe('potato-facts');
    expect(Object.keys(deployment.targets)).toEqual(['staging', 'prod']);
    expect(deployment.targets.staging?.constraints).toEqual({
      dependsOn: [],
      beforeDeployment: [],
      afterDeployment: [],
    });
    expect(deployment.targets.prod?.constraints).toEqual({
      dependsOn: ['staging'],
      beforeDeployment: [
        {
          pause: { untilApproved: true, requiresRoles: ['release-managers'], approvalExpiration: undefined },
        },
        { runWebhook: { name: 'ticket-open', context: { ticket: 'CHG-42' } } },
      ],
      afterDeployment: [{ pause: { duration: 5, unit: 'minutes' } }],
    });
    expect(deployment.strategies['canary-gated']).toEqual({
      canary: {
        steps: [
          { setWeight: { weight: 25 } },
          // A number in a context is the text the template gets.
          { runWebhook: { name: 'smoke-tests', context: { suite: 'smoke', retries: '3' } } },
          { setWeight: { weight: 50 } },
          { pause: { duration: 30, unit: 'seconds' } },
          { pause: { untilApproved: true, requiresRoles: [], approvalExpiration: undefined } },
        ],
      },
    });
    const [smoke, ticket] = deployment.webhooks;
    expect(smoke).toMatchObject({
      name: 'smoke-tests',
      method: 'POST',
      networkMode: 'direct',
      retryCount: 0,
      disableCallback: false,
      headers: [
        { key: 'Authorization', value: 'encrypted:env!n:CI_TOKEN' },
        { key: 'Content-Type', value: 'application/json' },
      ],
    });
    expect(durationMs(smoke!.timeout)).toBe(24 * 3_600_000);
    expect(ticket).toMatchObject({
      networkMode: 'remoteNetworkAgent',
      agentIdentifier: 'prod-agent',
      retryCount: 2,
    });
    expect(durationMs(ticket!.timeout)).toBe(2 * 3_600_000);
    expect(durationMs(deployment.deploymentConfig.timeout)).toBe(30 * 60_000);

    expect(loaded.manifests).toHaveLength(1);
    expect(loaded.manifests[0]?.origin).toBe(`${dir.root}/manifests/potato-facts.yaml`);
    expect(loaded.manifests[0]?.targets).toEqual(['staging', 'prod']);
    expect(loaded.manifests[0]?.objects.map((o) => o.kind)).toEqual(['Deployment', 'Service']);
  });
});

describe('the example of docs/deployment-files.md', () => {
  it('loads', async () => {
    const doc = readFileSync(new URL('../../../docs/deployment-files.md', import.meta.url), 'utf8');
    const example = /```yaml\n([\s\S]*?)```/.exec(doc)?.[1] ?? '';
    dir.write('docs-example/manifests/potato-facts.yaml', DEPLOYMENT_YAML);
    dir.write('docs-example/manifests/external-service.yaml', SERVICE_YAML);
    const loaded = await dir.load('docs-example/deploy.yaml', example);
    expect(Object.keys(loaded.deployment.targets)).toEqual(['staging', 'prod']);
    expect(loaded.deployment.webhooks.map((w) => w.name)).toEqual(['smoke-tests', 'change-ticket']);
  });
});

const BLUE_GREEN = `application: potato-facts
targets:
  prod-eu:
    account: prod-eu-cluster
    namespace: potato
    strategy: blue-green
manifests:
  - path: manifests/potato-facts.yaml
  - path: manifests/config
    targets: [prod-eu]
  - inline: |
      apiVersion: v1
      kind: Service
      metadata:
        name: potato-preview
      spec:
        selector: {app: potato-facts}
strategies:
  blue-green:
    blueGreen:
      activeService: potato-facts
      previewService: potato-preview
      redirectTrafficAfter:
        - pause:
            duration: 10
            unit: minutes
        - runWebhook:
            name: integration-tests
      shutDownOldVersionAfter:
        - pause:
            untilApproved: true
            approvalExpiration:
              duration: 1
              unit: hours
webhooks:
  - name: integration-tests
    method: PUT
    uriTemplate: https://tests.example/run/{{vendor.deploymentId}}
    networkMode: direct
    disableCallback: true
`;

describe('a blue/green deployment file', () => {
  it('loads with its services, parallel steps, and manifests from a file, a directory and inline YAML', async () => {
    const loaded = await dir.load('blue-green.yaml', BLUE_GREEN);
    expect(loaded.deployment.strategies['blue-green']).toEqual({
      blueGreen: {
        activeService: 'potato-facts',
        previewService: 'potato-preview',
        redirectTrafficAfter: [
          { pause: { duration: 10, unit: 'minutes' } },
          { runWebhook: { name: 'integration-tests', context: {} } },
        ],
        shutDownOldVersionAfter: [
          {
            pause: {
              untilApproved: true,
              requiresRoles: [],
              approvalExpiration: { duration: 1, unit: 'hours' },
            },
          },
        ],
      },
    });
    expect(loaded.deployment.webhooks[0]?.disableCallback).toBe(true);
    expect(
      loaded.manifests.map((m) => ({
        origin: m.origin.replace(dir.root, '.'),
        names: m.objects.map((o) => `${String(o.kind)}/${String((o.metadata as { name: string }).name)}`),
      })),
    ).toEqual([
      { origin: './manifests/potato-facts.yaml', names: ['Deployment/potato-facts', 'Service/potato-facts'] },
      // A directory gives its .yaml and .yml files, in name order; other files are not manifests.
      { origin: './manifests/config/a.yaml', names: ['ConfigMap/a'] },
      { origin: './manifests/config/b.yml', names: ['ConfigMap/b'] },
      { origin: 'manifests[2].inline', names: ['Service/potato-preview'] },
    ]);
  });
});

describe('a deployment file with mistakes', () => {
  it('names each one at file:line:col and key path, all in one run, in line order', async () => {
    const problems = await dir.problems(
      'mistakes.yaml',
      `application: potato-facts
targets:
  staging:
    acount: staging-cluster
    strategy: canary
    constraints:
      dependsOn: [prod, qa]
  prod:
    account: prod-cluster
    strategy: canry
    constraints:
      dependsOn: [staging]
      beforeDeployment:
        - runWebhook:
            name: smoke-test
manifests:
  - path: manifests/missing.yaml
  - path: manifests/potato-facts.yaml
    targets: [prd]
strategies:
  canary:
    canary:
      steps:
        - setWeight: {weight: 60}
        - setWeight: {weight: 40}
        - setWieght: {weight: 80}
        - pause: {duration: 10, unit: seconds, untilApproved: true}
        - setWeight: {weight: 120}
  bg:
    blueGreen:
      previewService: preview
webhooks:
  - name: smoke-tests
    method: POST
    uriTemplate: https://ci.example/{{context.repo}}
    networkMode: direct
    agentIdentifier: ci-agent
    bodyTemplate:
      inline: '{"cb": "{{vendor.callbakUri}}/callback"}'
  - name: silent
    method: GET
    uriTemplate: https://ci.example/status
    networkMode: direct
`,
    );
    const file = `${dir.root}/mistakes.yaml`;
    expect(problems).toEqual([
      `${file}:4:5: error: targets.staging.account: required, expected string`,
      `${file}:4:5: error: targets.staging.acount: unknown key 'acount'; did you mean 'account'?`,
      `${file}:7:7: error: targets.staging.constraints.dependsOn: targets wait for each other in a cycle, so none would deploy: staging → prod → staging`,
      `${file}:7:25: error: targets.staging.constraints.dependsOn[1]: no target 'qa' (defined: staging, prod)`,
      `${file}:10:15: error: targets.prod.strategy: no strategy 'canry' in strategies (defined: canary, bg); did you mean 'canary'?`,
      `${file}:15:19: error: targets.prod.constraints.beforeDeployment[0].runWebhook.name: no webhook 'smoke-test' in webhooks (defined: smoke-tests, silent); did you mean 'smoke-tests'?`,
      `${file}:17:11: error: manifests[0].path: cannot read manifests/missing.yaml (${dir.root}/manifests/missing.yaml): ENOENT`,
      `${file}:19:15: error: manifests[1].targets[0]: no target 'prd' (defined: staging, prod); did you mean 'prod'?`,
      `${file}:25:31: error: strategies.canary.canary.steps[1].setWeight.weight: weights must increase from step to step: 40 follows 60 (steps[0])`,
      `${file}:26:11: error: strategies.canary.canary.steps[2].setWieght: unknown key 'setWieght'; did you mean 'setWeight'?`,
      `${file}:27:18: error: strategies.canary.canary.steps[3].pause: a pause waits until approved or for a duration, not both: remove duration and unit`,
      `${file}:28:31: error: strategies.canary.canary.steps[4].setWeight.weight: expected at most 100, found number 120`,
      `${file}:31:7: error: strategies.bg.blueGreen.activeService: required, expected string (or a trafficManagement kubernetes entry for each target that uses it)`,
      `${file}:37:22: error: webhooks[0].agentIdentifier: agentIdentifier is used only with networkMode: remoteNetworkAgent`,
      `${file}:39:16: error: webhooks[0].bodyTemplate.inline: {{vendor.callbakUri}} is not a vendor variable (applicationName, deploymentId, environmentName, replicaSetName, accountName, namespace, callbackUri, planUri); did you mean {{vendor.callbackUri}}?`,
      `${file}:40:5: error: webhooks[1]: the job is never told where to call back: put {{vendor.callbackUri}}/callback in uriTemplate, a header or bodyTemplate.inline, or set disableCallback: true`,
    ]);
  });

  it('refuses a runWebhook step that does not declare the context names its webhook uses', async () => {
    const problems = await dir.problems(
      'context.yaml',
      `application: potato-facts
targets:
  prod:
    account: prod-cluster
    strategy: canary
manifests:
  - path: manifests/potato-facts.yaml
strategies:
  canary:
    canary:
      steps:
        - runWebhook:
            name: tests
            context:
              suite: smoke
        - runWebhook:
            name: tests
webhooks:
  - name: tests
    method: POST
    uriTemplate: https://ci.example/{{context.repo}}/{{ context.suite }}
    networkMode: direct
    headers:
      - key: X-Callback
        value: '{{vendor.callbackUri}}/callback'
`,
    );
    const file = `${dir.root}/context.yaml`;
    expect(problems).toEqual([
      `${file}:14:13: error: strategies.canary.canary.steps[0].runWebhook.context: webhook 'tests' uses {{context.repo}} (in uriTemplate), which this step does not declare in its context (declared: suite)`,
      `${file}:16:11: error: strategies.canary.canary.steps[1].runWebhook: webhook 'tests' uses {{context.repo}} (in uriTemplate), {{context.suite}} (in uriTemplate), which this step does not declare in its context`,
    ]);
  });

  it('wants exactly one kind for a step, a strategy and a manifest', async () => {
    const problems = await dir.problems(
      'kinds.yaml',
      `application: a
targets:
  t: {account: c, strategy: both}
manifests:
  - path: manifests/potato-facts.yaml
    inline: 'apiVersion: v1'
strategies:
  both:
    canary:
      steps:
        - setWeight: {weight: 10}
          pause: {untilApproved: true}
        - {}
        - analysis: {interval: 30, units: seconds, queries: [restarts]}
    blueGreen:
      activeService: web
      previewService: web
`,
    );
    const file = `${dir.root}/kinds.yaml`;
    expect(problems).toEqual([
      `${file}:5:5: error: manifests[0]: a manifest has 'path' or 'inline', not both`,
      `${file}:9:5: error: strategies.both: a strategy has exactly one of 'canary', 'blueGreen', found 'canary' and 'blueGreen'`,
      `${file}:11:11: error: strategies.both.canary.steps[0]: a canary step has exactly one of 'setWeight', 'pause', 'runWebhook', 'analysis', 'exposeServices', found 'setWeight' and 'pause'`,
      `${file}:13:11: error: strategies.both.canary.steps[1]: a canary step needs one of 'setWeight', 'pause', 'runWebhook', 'analysis', 'exposeServices', found none`,
      `${file}:17:23: error: strategies.both.blueGreen.previewService: previewService must differ from activeService ('web')`,
    ]);
  });

  it('refuses a uriTemplate that cannot render to an http(s) URL, and a repeated webhook name', async () => {
    const webhook = (name: string, uri: string) =>
      `  - name: ${name}\n    method: GET\n    uriTemplate: '${uri}'\n    networkMode: direct\n    disableCallback: true\n`;
    const problems = await dir.problems(
      'uris.yaml',
      `application: a
targets:
  t: {account: c, strategy: s}
manifests:
  - path: manifests/potato-facts.yaml
strategies:
  s: {canary: {steps: [{setWeight: {weight: 10}}]}}
webhooks:
${webhook('ftp', 'ftp://files.example/{{vendor.deploymentId}}')}${webhook('relative', '/hooks/run')}${webhook('templated', '{{vendor.namespace}}.example')}${webhook('ftp', 'https://ci.example/ok')}`,
    );
    const file = `${dir.root}/uris.yaml`;
    expect(problems).toEqual([
      `${file}:11:19: error: webhooks[0].uriTemplate: expected an http:// or https:// URL, found 'ftp://files.example/{{vendor.deploymentId}}'`,
      `${file}:16:19: error: webhooks[1].uriTemplate: expected an http:// or https:// URL, found '/hooks/run'`,
      `${file}:24:11: error: webhooks[3].name: webhook 'ftp' is already defined by webhooks[0]`,
    ]);
  });

  it("refuses the original product's {{secrets.<name>}} and shows the encrypted: reference to write instead", async () => {
    const problems = await dir.problems(
      'secrets.yaml',
      `application: a
targets:
  t: {account: c, strategy: s}
manifests:
  - path: manifests/potato-facts.yaml
strategies:
  s: {canary: {steps: [{setWeight: {weight: 10}}]}}
webhooks:
  - name: ci
    method: POST
    uriTemplate: https://ci.example/run
    networkMode: direct
    headers:
      - key: Authorization
        value: 'Bearer {{secrets.ci_token}}'
`,
    );
    expect(problems).toEqual([
      `${dir.root}/secrets.yaml:15:17: error: webhooks[0].headers[0].value: '{{secrets.ci_token}}' is a secret of the original product: cloudctl reads secrets from its secret engines, so write the whole header value as a reference, e.g. 'encrypted:vault!e:secret!p:<path>!k:<key>' or 'encrypted:k8s!n:<secret>!k:<key>' (docs/deployment-files.md, "Secrets")`,
    ]);
  });

  it('places a bad object of a manifest file in that file, at its document', async () => {
    dir.write(
      'manifests/broken.yaml',
      `${SERVICE_YAML}---\napiVersion: v1\nmetadata:\n  name: nameless-kind\n`,
    );
    const problems = await dir.problems(
      'broken-manifest.yaml',
      'application: a\ntargets:\n  t: {account: c, strategy: s}\nmanifests:\n  - path: manifests/broken.yaml\nstrategies:\n  s: {canary: {steps: [{setWeight: {weight: 10}}]}}\n',
    );
    expect(problems).toEqual([
      `${dir.root}/manifests/broken.yaml:9:1: error: a Kubernetes object needs 'kind', found nothing`,
    ]);
  });

  it('places a bad object of an inline manifest at its line in the deployment file', async () => {
    const problems = await dir.problems(
      'broken-inline.yaml',
      `application: a
targets:
  t: {account: c, strategy: s}
manifests:
  - inline: |
      apiVersion: v1
      kind: ConfigMap
      metadata:
        name: fine
      ---
      apiVersion: v1
      metadata:
        name: nameless-kind
  - inline: "apiVersion: v1\\nkind: Secret"
strategies:
  s: {canary: {steps: [{setWeight: {weight: 10}}]}}
`,
    );
    const file = `${dir.root}/broken-inline.yaml`;
    expect(problems).toEqual([
      `${file}:11:7: error: manifests[0].inline: a Kubernetes object needs 'kind', found nothing`,
      // A quoted scalar's lines are not the file's: the error stays at the value, saying which line.
      `${file}:14:14: error: manifests[1].inline: line 1 of the inline YAML: Secret needs metadata.name, found nothing`,
    ]);
  });

  it('reports malformed YAML at its position', async () => {
    const problems = await dir.problems('syntax.yaml', 'application: a\ntargets:\n  t: [unclosed\n');
    expect(problems).toHaveLength(1);
    expect(problems[0]).toMatch(new RegExp(`^${dir.root}/syntax\\.yaml:4:1: error: invalid YAML: `));
  });

  it('asks for inline manifests when the file comes without its directory', async () => {
    const result = await parseDeploymentFile(
      'application: a\ntargets:\n  t: {account: c, strategy: s}\nmanifests:\n  - path: manifests/app.yaml\nstrategies:\n  s: {canary: {steps: [{setWeight: {weight: 10}}]}}\n',
      { file: 'request body', baseDir: undefined },
    );
    expect(result.ok ? [] : result.issues.map(formatIssue)).toEqual([
      "request body:5:11: error: manifests[0].path: 'manifests/app.yaml' is relative, and this deployment has no directory: inline the manifest",
    ]);
  });
});

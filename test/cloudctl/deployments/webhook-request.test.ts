// Webhook requests as the job receives them: every vendor variable and the step's context put in
// place in the URI, headers and body; a clear error, before anything is sent, when a value is
// missing or a context name is not declared; and a log line that carries no secret.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  DeploymentError,
  describeWebhookRequest,
  type LoadedDeployment,
  renderWebhookRequest,
  VENDOR_VARIABLES,
  type VendorValues,
  type Webhook,
} from '../../../src/cloudctl/deployments/index.ts';
import { DEPLOYMENT_YAML, DeploymentDir } from './deployment-files.ts';

const dir = new DeploymentDir();
let loaded: LoadedDeployment;
beforeAll(async () => {
  dir.write('manifests/app.yaml', DEPLOYMENT_YAML);
  loaded = await dir.load(
    'deploy.yaml',
    `application: potato-facts
targets:
  prod:
    account: prod-cluster
    namespace: potato
    strategy: gated
manifests:
  - path: manifests/app.yaml
strategies:
  gated:
    canary:
      steps:
        - runWebhook:
            name: every-variable
            context:
              host: ci.example
              suite: smoke
        - runWebhook:
            name: secrets
webhooks:
  - name: every-variable
    method: POST
    uriTemplate: https://{{context.host}}/deploy/{{vendor.deploymentId}}?env={{ vendor.environmentName }}
    networkMode: direct
    headers:
      - key: X-Application
        value: '{{vendor.applicationName}}'
      - key: X-Callback
        value: '{{vendor.callbackUri}}/callback'
    bodyTemplate:
      inline: |-
        {"app": "{{vendor.applicationName}}", "deployment": "{{vendor.deploymentId}}",
         "environment": "{{vendor.environmentName}}", "replicaSet": "{{vendor.replicaSetName}}",
         "account": "{{vendor.accountName}}", "namespace": "{{vendor.namespace}}",
         "callback": "{{vendor.callbackUri}}/callback", "plan": "{{vendor.planUri}}",
         "suite": "{{context.suite}}"}
  - name: secrets
    method: GET
    uriTemplate: https://robot:hunter2@ci.example/status?access_token=plain-token-value&page=2
    networkMode: direct
    disableCallback: true
    headers:
      - key: Authorization
        value: encrypted:vault!e:secret!p:ci/robot!k:token
      - key: X-Api-Key
        value: plain-api-key-value
      - key: Accept
        value: application/json
`,
  );
});
afterAll(() => dir.remove());

const VENDOR: Required<VendorValues> = {
  applicationName: 'potato-facts',
  deploymentId: 'dep-7f3a',
  environmentName: 'prod',
  replicaSetName: 'potato-facts-5d8c7b9f4',
  accountName: 'prod-cluster',
  namespace: 'potato',
  callbackUri: 'https://cloudctl.example/webhooks/cb-91e2',
  planUri: 'https://cloudctl.example/plans/plan-4c1d',
};

function webhook(name: string): Webhook {
  const found = loaded.deployment.webhooks.find((w) => w.name === name);
  if (found === undefined) throw new Error(`no webhook ${name}`);
  return found;
}

function renderError(run: () => unknown): DeploymentError {
  try {
    run();
  } catch (error) {
    if (error instanceof DeploymentError) return error;
    throw error;
  }
  throw new Error('expected the render to fail');
}

describe('renderWebhookRequest', () => {
  it('puts all eight vendor variables and the step context in the URI, headers and body', () => {
    expect(VENDOR_VARIABLES).toHaveLength(8);
    const request = renderWebhookRequest(
      webhook('every-variable'),
      { host: 'ci.example', suite: 'smoke' },
      VENDOR,
    );
    expect(request).toEqual({
      webhook: 'every-variable',
      method: 'POST',
      url: 'https://ci.example/deploy/dep-7f3a?env=prod',
      headers: [
        { key: 'X-Application', value: 'potato-facts' },
        { key: 'X-Callback', value: 'https://cloudctl.example/webhooks/cb-91e2/callback' },
      ],
      body: [
        '{"app": "potato-facts", "deployment": "dep-7f3a",',
        ' "environment": "prod", "replicaSet": "potato-facts-5d8c7b9f4",',
        ' "account": "prod-cluster", "namespace": "potato",',
        ' "callback": "https://cloudctl.example/webhooks/cb-91e2/callback", "plan": "https://cloudctl.example/plans/plan-4c1d",',
        ' "suite": "smoke"}',
      ].join('\n'),
    });
    expect(JSON.parse(request.body ?? '')).toMatchObject({ replicaSet: VENDOR.replicaSetName });
  });

  it('refuses, naming field and variable, a vendor variable without a value at this step', () => {
    const { replicaSetName: _none, ...beforeAnyReplicaSet } = VENDOR;
    const error = renderError(() =>
      renderWebhookRequest(
        webhook('every-variable'),
        { host: 'ci.example', suite: 'smoke' },
        beforeAnyReplicaSet,
      ),
    );
    expect(error.code).toBe('WEBHOOK_VARIABLE_UNDEFINED');
    expect(error.message).toBe(
      "WEBHOOK_VARIABLE_UNDEFINED: webhook 'every-variable' cannot be sent: bodyTemplate.inline: {{vendor.replicaSetName}} has no value at this step",
    );
  });

  it('refuses a context variable the step does not declare', () => {
    const error = renderError(() =>
      renderWebhookRequest(webhook('every-variable'), { suite: 'smoke' }, VENDOR),
    );
    expect(error.code).toBe('WEBHOOK_CONTEXT_UNDECLARED');
    expect(error.message).toBe(
      "WEBHOOK_CONTEXT_UNDECLARED: webhook 'every-variable' cannot be sent: uriTemplate: {{context.host}} is not declared in the step's context (declared: suite)",
    );
  });

  it('refuses a URI that does not render to an http(s) URL, and a header value with a line break', () => {
    const url = renderError(() =>
      renderWebhookRequest(webhook('every-variable'), { host: 'ci example', suite: 'smoke' }, VENDOR),
    );
    expect(url.code).toBe('WEBHOOK_URL_INVALID');
    const header = renderError(() =>
      renderWebhookRequest(
        webhook('every-variable'),
        { host: 'ci.example', suite: 'smoke' },
        {
          ...VENDOR,
          applicationName: 'potato\r\nX-Injected: yes',
        },
      ),
    );
    expect(header.code).toBe('WEBHOOK_HEADER_INVALID');
    expect(header.message).toContain('headers[0].value (X-Application)');
  });

  it('keeps a secret header value a reference, for the sender to resolve', () => {
    const request = renderWebhookRequest(webhook('secrets'), {}, VENDOR);
    expect(request.headers).toEqual([
      { key: 'Authorization', secretReference: 'encrypted:vault!e:secret!p:ci/robot!k:token' },
      { key: 'X-Api-Key', value: 'plain-api-key-value' },
      { key: 'Accept', value: 'application/json' },
    ]);
  });
});

describe('describeWebhookRequest', () => {
  it('names method, URL, headers and body size with no secret, referenced or written out', () => {
    const line = describeWebhookRequest(renderWebhookRequest(webhook('secrets'), {}, VENDOR));
    expect(line).toBe(
      "webhook 'secrets': GET https://redacted@ci.example/status?access_token=%3Credacted%3E&page=2 (headers Authorization: <secret>, X-Api-Key: <redacted>, Accept: application/json; no body)",
    );
    for (const secret of ['hunter2', 'plain-token-value', 'plain-api-key-value', 'ci/robot', 'encrypted:'])
      expect(line).not.toContain(secret);
  });

  it('does not show the body, which may carry anything', () => {
    const request = renderWebhookRequest(
      webhook('every-variable'),
      { host: 'ci.example', suite: 'smoke' },
      VENDOR,
    );
    const line = describeWebhookRequest(request);
    expect(line).toContain(`body ${Buffer.byteLength(request.body ?? '')} bytes`);
    expect(line).not.toContain('potato-facts-5d8c7b9f4');
  });
});

// The complete example of docs/deployment-files.md, read from the docs file, loaded by the real loader:
// its `smoke-tests` webhook step (networkMode: direct, an `Authorization` header from Vault) is sent
// by cloudctl's webhook sender with the engines of a cloudctl config whose `secrets.store.vault` points
// at a real OpenBao server. The one change to the example is where the request goes: the receiver
// here instead of api.github.com. The docs page's cloudctl config block is the one used, so the page
// and this test cannot drift apart. The same step with `networkMode: remoteNetworkAgent` shows the
// other half: the reference travels to the agent, which resolves it with its own Vault settings.
import { randomBytes } from 'node:crypto';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import pino from 'pino';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadConfig as loadAgentConfig } from '../../../src/agent/config/index.ts';
import { loadConfig, resolveConfig } from '../../../src/cloudctl/config/index.ts';
import {
  DeploymentError,
  directWebhookTransport,
  type ExecuteOnAgent,
  type HttpRequestPayload,
  type LoadedDeployment,
  renderWebhookRequest,
  type Webhook,
  webhookSecrets,
  webhookSender,
} from '../../../src/cloudctl/deployments/index.ts';
import { secretValue } from '../../../src/secrets/index.ts';
import { type OpenBao, startOpenBao } from '../../cluster/index.ts';
import { DEPLOYMENT_YAML, DeploymentDir, SERVICE_YAML } from './deployment-files.ts';
import { WebhookReceiver } from './webhook-receiver.ts';

const DOC = readFileSync(new URL('../../../docs/deployment-files.md', import.meta.url), 'utf8');
/** The first YAML block is the complete example; the one after `cloudctl.yaml` the config it needs. */
const EXAMPLE = /```yaml\n([\s\S]*?)```/.exec(DOC)?.[1] ?? '';
const CLOUDCTL_CONFIG = (() => {
  // The block sits in a list item: its lines carry the item's indent.
  const found = /^( *)```yaml\n *# cloudctl\.yaml\n([\s\S]*?)^ *```/m.exec(DOC);
  const indent = found?.[1] ?? '';
  return (found?.[2] ?? '')
    .split('\n')
    .map((line) => (line.startsWith(indent) ? line.slice(indent.length) : line))
    .join('\n');
})();
const GITHUB_TOKEN = `Bearer ghp_${randomBytes(15).toString('hex')}`;

const dir = new DeploymentDir();
let bao: OpenBao;
let receiver: WebhookReceiver;
let loaded: LoadedDeployment;
/** A Vault token whose only policy reads secret/data/ci/github. */
let readerToken: string;

beforeAll(async () => {
  bao = await startOpenBao(join(dir.root, 'openbao'));
  await bao.api('POST', 'secret/data/ci/github', { data: { authorization: GITHUB_TOKEN } });
  await bao.api('PUT', 'sys/policies/acl/read-ci-github', {
    policy: 'path "secret/data/ci/github" { capabilities = ["read"] }',
  });
  const created = await bao.api('POST', 'auth/token/create', { policies: ['read-ci-github'] });
  readerToken = (created as { auth: { client_token: string } }).auth.client_token;
  receiver = await WebhookReceiver.start();
  dir.write('example/manifests/potato-facts.yaml', DEPLOYMENT_YAML);
  dir.write('example/manifests/external-service.yaml', SERVICE_YAML);
  loaded = await dir.load('example/deploy.yaml', EXAMPLE);
}, 120_000);

afterAll(async () => {
  await receiver?.close();
  await bao?.stop();
  dir.remove();
});

/** cloudctl's engines from the docs page's config, with the Vault address of this test's OpenBao. */
async function cloudctlSecrets(env: NodeJS.ProcessEnv) {
  expect(CLOUDCTL_CONFIG).toContain('vault:');
  const file = join(dir.root, `cloudctl-${randomBytes(4).toString('hex')}.yaml`);
  writeFileSync(file, CLOUDCTL_CONFIG.replace('https://vault.example.com:8200', bao.url));
  const config = await loadConfig(file, { env });
  if (!config.ok) throw new Error(JSON.stringify(config.issues));
  const resolved = await resolveConfig(config);
  if (!resolved.ok) throw new Error(JSON.stringify(resolved.issues));
  return webhookSecrets(resolved.secretEngines);
}

/**
 * Stands in for an agent's `httpRequest` operation the way the agent runs it (operations-feature.ts):
 * secret headers resolved with the agent's own engines, here those of an agent config whose
 * `secrets.store.vault` points at the same OpenBao. Reports as the agent does.
 */
function agentOnNetwork(
  agentSecrets: (reference: string) => Promise<string>,
  payloads: HttpRequestPayload[],
) {
  const execute: ExecuteOnAgent = async (_type, payload) => {
    payloads.push(structuredClone(payload));
    const headers = { ...payload.headers };
    for (const [name, reference] of Object.entries(payload.secretHeaders ?? {}))
      headers[name] = await agentSecrets(reference);
    const answer = await directWebhookTransport().send({ ...payload, headers, secretHeaders: {} });
    return {
      id: `op-${payloads.length}`,
      outcome: 'succeeded',
      result: { status: answer.status, headers: {}, body: answer.body, truncated: false },
    };
  };
  return execute;
}

/** Runs the example's smoke-tests step as the runner does: rendered with the step's context, then sent. */
async function runSmokeTests(
  secrets: (reference: string) => Promise<string>,
  agent?: ReturnType<typeof agentOnNetwork>,
) {
  const webhook = loaded.deployment.webhooks.find((w) => w.name === 'smoke-tests');
  if (webhook === undefined) throw new Error('the docs example has no smoke-tests webhook');
  const here: Webhook = {
    ...webhook,
    uriTemplate: webhook.uriTemplate.replace('https://api.github.com', receiver.url),
  };
  const request = renderWebhookRequest(
    here,
    { suite: 'smoke' },
    { callbackUri: 'https://cloudctl.example/deployments/callbacks/abc', namespace: 'potato' },
  );
  const sender = webhookSender({
    direct: directWebhookTransport(),
    onAgent: () => agent ?? (() => Promise.reject(new Error('the example sends directly'))),
    accountOfAgent: () => undefined,
    secrets,
    logger: pino({ level: 'silent' }),
  });
  const via =
    agent === undefined
      ? { mode: 'direct' as const }
      : { mode: 'agent' as const, account: 'prod-cluster', agentIdentifier: undefined };
  return { webhook, sent: sender.send(request, { retryCount: 0, via }) };
}

describe("the deployment-file example's Vault header, sent directly by cloudctl", () => {
  it('is sent with the value Vault holds, read through the secrets.store.vault of cloudctl', async () => {
    const secrets = await cloudctlSecrets({ CLOUDCTL_VAULT_TOKEN: readerToken });
    const { webhook, sent } = await runSmokeTests(secrets);
    expect(webhook.networkMode).toBe('direct');
    expect(webhook.headers).toContainEqual({
      key: 'Authorization',
      value: 'encrypted:vault!e:secret!p:ci/github!k:authorization',
    });
    expect(await sent).toEqual({ status: 200 });
    const call = await receiver.next(0);
    expect(call.path).toBe('/repos/example/potato-facts/dispatches');
    expect(call.headers.authorization).toBe(GITHUB_TOKEN);
    expect(call.headers['content-type']).toBe('application/json');
    expect(call.body).toMatchObject({
      event_type: 'smoke-tests',
      client_payload: { namespace: 'potato', suite: 'smoke' },
    });
  });

  it('is not sent when Vault refuses the token, and the error names the reference, not a value', async () => {
    const stranger = await bao.api('POST', 'auth/token/create', { policies: ['default'] });
    const token = (stranger as { auth: { client_token: string } }).auth.client_token;
    const before = receiver.requests.length;
    const { sent } = await runSmokeTests(await cloudctlSecrets({ CLOUDCTL_VAULT_TOKEN: token }));
    const error = await sent.then(
      () => undefined,
      (e: unknown) => e,
    );
    expect(error).toBeInstanceOf(DeploymentError);
    expect(error).toMatchObject({ code: 'WEBHOOK_SECRET_UNRESOLVED' });
    expect(String(error)).toContain(
      "header 'Authorization' (encrypted:vault!e:secret!p:ci/github!k:authorization) cannot be resolved, nothing was sent: SECRET_FORBIDDEN: Vault denied reading secret/data/ci/github",
    );
    expect(String(error)).not.toContain(token);
    expect(receiver.requests.length).toBe(before);
  });
});

describe('the same header with networkMode: remoteNetworkAgent', () => {
  it("travels to the agent as the reference and is resolved there, by the agent's own Vault settings", async () => {
    const file = join(dir.root, 'agent.yaml');
    writeFileSync(
      file,
      ['secrets:', '  store:', '    vault:', '      enabled: true', `      url: ${bao.url}`, ''].join('\n'),
    );
    const agentConfig = await loadAgentConfig(file, {
      fetchSecrets: false,
      env: { VAULT_TOKEN: readerToken },
    });
    if (!agentConfig.ok) throw new Error(JSON.stringify(agentConfig.issues));
    const payloads: HttpRequestPayload[] = [];
    const agent = agentOnNetwork(
      (reference) => secretValue(reference, agentConfig.secretEngines, 'the agent'),
      payloads,
    );
    const taken = receiver.calls.length;
    // cloudctl never resolves it in this mode: it would fail the step if asked.
    const cloudctlMustNotResolve = () =>
      Promise.reject(new Error('cloudctl was asked to resolve the header'));
    const { sent } = await runSmokeTests(cloudctlMustNotResolve, agent);
    expect(await sent).toEqual({ status: 200 });
    expect(payloads[0]?.secretHeaders).toEqual({
      Authorization: 'encrypted:vault!e:secret!p:ci/github!k:authorization',
    });
    expect(JSON.stringify(payloads)).not.toContain(GITHUB_TOKEN);
    const call = await receiver.next(taken);
    expect(call.headers.authorization).toBe(GITHUB_TOKEN);
  });
});

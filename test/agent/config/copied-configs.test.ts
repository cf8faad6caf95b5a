// Configs copied from the product we replace, renamed the way the spec renames (clouddriver →
// cloudctl, kubernetes → orchestrator, kubeconfigFile → orchConfigFile), load as that product reads them.
import { load } from 'js-yaml';
import { describe, expect, it } from 'vitest';
import { cli, writeConfig } from './config-fixture.ts';

/** The original's account template, as its documentation shows it: empty keys, list permissions. */
const ORIGINAL_TEMPLATE = `cloudctl:
  grpc: cloudctl-grpc:9091
  insecure: true
orchestrator:
  accounts:
    - name: account-01
      orchConfigFile: /kubeconfigfiles/kubecfg-account01.yaml
      insecure:
      context:
      oAuthScopes:
      serviceAccount: false
      namespaces: []
      kinds: []
      omitKinds: []
      customResourceDefinitions: []
      metrics:
      permissions:
        - READ: ['123567', dev]
        - WRITE: [123567]
`;

async function validate(yaml: string) {
  const file = writeConfig(yaml);
  return { file, ...(await cli(['config', 'validate', file])) };
}

async function effective(yaml: string) {
  const printed = await cli(['config', 'print', writeConfig(yaml)]);
  expect(printed.code, printed.stderr).toBe(0);
  return load(printed.stdout) as {
    variant: string;
    orchestrator: { accounts: Array<Record<string, unknown>> };
  };
}

const account = (extra: string) => `variant: B\norchestrator:\n  accounts:\n    - name: a\n${extra}`;

describe('a config copied from the product we replace', () => {
  it('validates without errors or warnings', async () => {
    const result = await validate(ORIGINAL_TEMPLATE);
    expect(result.stderr).toBe('');
    expect(result.stdout).toBe(`${result.file}: valid (variant B, 1 account)`);
    expect(result.code).toBe(0);
  });

  it('reads empty keys as not set, so their defaults apply', async () => {
    const [entry] = (await effective(ORIGINAL_TEMPLATE)).orchestrator.accounts;
    expect(entry).toMatchObject({ insecure: false, context: '', metrics: false, oAuthScopes: [] });
  });

  it('reads list permissions and numeric role names as the map of string lists', async () => {
    const [entry] = (await effective(ORIGINAL_TEMPLATE)).orchestrator.accounts;
    expect(entry?.permissions).toEqual({ READ: ['123567', 'dev'], WRITE: ['123567'] });
  });
});

describe('permissions as a list of single-key entries', () => {
  it.each([
    {
      rule: 'whitespace in a role name is rejected where it is written',
      yaml: account('      permissions:\n        - READ: [dev]\n        - WRITE: [dev, "ops team"]\n'),
      at: '7:25: error: orchestrator.accounts[0].permissions[1].WRITE[1]: ',
      message: /must not contain whitespace: the permissions would otherwise not be applied/,
    },
    {
      rule: 'an entry other than READ or WRITE is rejected',
      yaml: account('      permissions:\n        - read: [dev]\n'),
      at: '6:11: error: orchestrator.accounts[0].permissions[0]: ',
      message: /only READ and WRITE are permission keys \(found read\)/,
    },
    {
      rule: 'an entry holds one key',
      yaml: account('      permissions:\n        - READ: [dev]\n          WRITE: [ops]\n'),
      at: '6:11: error: orchestrator.accounts[0].permissions[0]: ',
      message: /each entry of the permissions list holds one key, READ or WRITE \(found READ and WRITE\)/,
    },
    {
      rule: 'a key given twice is rejected instead of one list replacing the other',
      yaml: account('      permissions:\n        - READ: [dev]\n        - READ: [ops]\n'),
      at: '7:17: error: orchestrator.accounts[0].permissions[1].READ: ',
      message: /READ is already given by permissions\[0\]/,
    },
  ])('$rule', async ({ yaml, at, message }) => {
    const result = await validate(yaml);
    expect(result.code).toBe(1);
    const line = result.stderr.split('\n').find((l) => l.startsWith(`${result.file}:${at}`));
    expect(line, result.stderr).toBeDefined();
    expect(line).toMatch(message);
  });
});

describe('empty values', () => {
  it('leave a required key required, reported at its own line', async () => {
    const result = await validate('orchestrator:\n  accounts:\n    - name:\n      context:\n');
    expect(result.code).toBe(1);
    expect(result.stderr).toContain(
      `${result.file}:3:7: error: orchestrator.accounts[0].name: required, expected string`,
    );
  });

  it('that are wrong where they stand are reported at their own line, not at the top of the file', async () => {
    const result = await validate(account('      kinds:\n        -\n        - pod\n'));
    expect(result.code).toBe(1);
    expect(result.stderr).toContain(
      `${result.file}:6:9: error: orchestrator.accounts[0].kinds[0]: expected string, found an empty value`,
    );
  });

  it('keep their meaning in free maps: an empty logging field is detected, not dropped', async () => {
    const printed = await cli(['config', 'print', writeConfig('logging:\n  fields:\n    agentCluster:\n')]);
    expect(printed.stdout).toMatch(/^ {4}agentCluster: null$/m);
  });
});

describe('a file without variant:', () => {
  it('takes the only variant its keys fit and says so at INFO', async () => {
    const result = await validate('dynamicAccountsEnabled: false\n');
    expect(result.code).toBe(0);
    expect(result.stdout).toBe(`${result.file}: valid (variant C, 0 accounts)`);
    expect(result.stderr).toBe(
      `${result.file}:1:1: info: no 'variant:' in the file: read as variant C (the only variant whose settings include every key it uses); write 'variant: C' at the top to make it explicit`,
    );
  });

  it('takes C before A when both fit', async () => {
    const result = await validate(
      'orchestrator:\n  accounts:\n    - name: a\n      skipServerSideApply: true\n',
    );
    expect(result.code).toBe(0);
    expect(result.stdout).toContain('valid (variant C, 1 account)');
    expect(result.stderr).toContain('its keys fit C and A; C is taken where several fit');
  });

  it('takes B, without a note, where B fits', async () => {
    const result = await validate('cloudctl:\n  keepAliveHeartbeatSeconds: 5\n');
    expect(result).toMatchObject({ code: 0, stderr: '' });
    expect(result.stdout).toContain('valid (variant B, 0 accounts)');
  });

  it('mixing keys of two variants is an error naming the foreign key', async () => {
    const result = await validate('cloudctl:\n  backoff:\n    multiplier: 2\ndynamicAccountsEnabled: true\n');
    expect(result.code).toBe(1);
    expect(result.stderr).toContain(
      `${result.file}:4:1: error: dynamicAccountsEnabled: 'dynamicAccountsEnabled' exists only in variant C, and this file, which does not say its variant, mixes keys of several: read as variant B, the closest`,
    );
  });

  it('a written variant stays a hard error for another variant key', async () => {
    const result = await validate('variant: B\ndynamicAccountsEnabled: false\n');
    expect(result.code).toBe(1);
    expect(result.stderr).toContain(
      `${result.file}:2:1: error: dynamicAccountsEnabled: 'dynamicAccountsEnabled' exists only in variant C, and this file is variant B`,
    );
  });
});

describe("the original product's spelling of a key", () => {
  it('gets our key as the suggestion: its metrics block is telemetry', async () => {
    const result = await validate('variant: B\nprometheus:\n  enabled: true\n  port: 8008\n');
    expect(result.code).toBe(0);
    expect(result.stderr).toBe(
      `${result.file}:2:1: warning: prometheus: unknown key 'prometheus' is ignored; did you mean 'telemetry'? ('prometheus' is the original product's name for it)`,
    );
  });

  it('is warned about in account entries too, where unused properties are otherwise silent', async () => {
    const result = await validate(account('      kubeconfigFile: /k\n'));
    expect(result.stderr).toContain(
      `${result.file}:5:7: warning: orchestrator.accounts[0].kubeconfigFile: unknown key 'kubeconfigFile' is ignored; did you mean 'orchConfigFile'?`,
    );
  });
});

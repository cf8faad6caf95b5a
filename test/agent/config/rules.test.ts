import { describe, expect, it } from 'vitest';
import { cli, writeConfig } from './config-fixture.ts';

interface Case {
  rule: string;
  yaml: string;
  /** `line:column: severity: key.path: ` prefix expected in one output line. */
  at: string;
  message: RegExp;
}

const account = (extra: string) => `orchestrator:\n  accounts:\n    - name: a\n${extra}`;

const cases: Case[] = [
  {
    rule: 'account name is required',
    yaml: 'orchestrator:\n  accounts:\n    - context: x\n',
    at: '3:7: error: orchestrator.accounts[0].name: ',
    message: /required, expected string/,
  },
  {
    rule: 'account names are unique',
    yaml: 'orchestrator:\n  accounts:\n    - name: a\n    - name: a\n',
    at: '4:13: error: orchestrator.accounts[1].name: ',
    message: /duplicate account name 'a' \(first used by orchestrator.accounts\[0\]\)/,
  },
  {
    rule: 'serviceAccount and orchConfigFile are mutually exclusive',
    yaml: account('      serviceAccount: true\n      orchConfigFile: /k\n'),
    at: '5:23: error: orchestrator.accounts[0].orchConfigFile: ',
    message: /mutually exclusive/,
  },
  {
    rule: 'onlyNamespacedResources needs namespaces',
    yaml: account('      onlyNamespacedResources: true\n'),
    at: '3:7: error: orchestrator.accounts[0].namespaces: ',
    message: /needs a non-empty namespaces list/,
  },
  {
    rule: 'log level is one of the spec levels',
    yaml: 'logging:\n  level: loud\n',
    at: '2:10: error: logging.level: ',
    message:
      /expected one of panic, fatal, error, warn, info, debug, trace, warning \(any case\), found the string 'loud'/,
  },
  {
    rule: 'log format is text or json',
    yaml: 'logging:\n  format: xml\n',
    at: '2:11: error: logging.format: ',
    message: /expected one of 'text', 'json', found the string 'xml'/,
  },
  {
    rule: 'server-side apply policy is always, never or allowed',
    yaml: 'orchestrator:\n  serverSideApply:\n    enabled: sometimes\n',
    at: '3:14: error: orchestrator.serverSideApply.enabled: ',
    message: /expected one of 'always', 'never', 'allowed'/,
  },
  {
    rule: 'token command format is raw, json or empty',
    yaml: 'cloudctl:\n  auth:\n    tokenCommand:\n      command: x\n      format: yaml\n',
    at: '5:15: error: cloudctl.auth.tokenCommand.format: ',
    message: /expected one of '', 'raw', 'json', found the string 'yaml'/,
  },
  {
    rule: 'CRD scope is Cluster or Namespaced',
    yaml: account(
      '      customResourceDefinitions:\n        - kind: Rollout.argoproj.io\n          scope: Global\n',
    ),
    at: '6:18: error: orchestrator.accounts[0].customResourceDefinitions[0].scope: ',
    message: /expected one of 'Cluster', 'Namespaced'/,
  },
  {
    rule: 'CRD kind has the form Kind.group',
    yaml: account('      customResourceDefinitions:\n        - kind: rollout\n'),
    at: '5:17: error: orchestrator.accounts[0].customResourceDefinitions[0].kind: ',
    message: /expected Kind.group/,
  },
  {
    rule: 'backoff multiplier below 1 cannot work',
    yaml: 'cloudctl:\n  backoff:\n    multiplier: 0.5\n',
    at: '3:17: error: cloudctl.backoff.multiplier: ',
    message: /expected at least 1, found number 0.5/,
  },
  {
    rule: 'backoff maxDelay below baseDelay cannot work',
    yaml: 'cloudctl:\n  backoff:\n    baseDelay: 5000000000\n    maxDelay: 1000000000\n',
    at: '4:15: error: cloudctl.backoff.maxDelay: ',
    message: /must be at least cloudctl.backoff.baseDelay/,
  },
  {
    rule: 'whitespace in a role name is rejected',
    yaml: account('      permissions:\n        READ: [dev, "ops team"]\n'),
    at: '5:22: error: orchestrator.accounts[0].permissions.READ[1]: ',
    message:
      /must not contain whitespace: the permissions would otherwise not be applied and every user would have access/,
  },
  {
    rule: 'whitespace in a comma-separated role list is rejected',
    yaml: account('      permissions:\n        WRITE: dev, ops\n'),
    at: '5:16: error: orchestrator.accounts[0].permissions.WRITE[1]: ',
    message: /must not contain whitespace/,
  },
  {
    rule: 'permission keys other than READ and WRITE are rejected',
    yaml: account('      permissions:\n        read: [dev]\n'),
    at: '5:9: error: orchestrator.accounts[0].permissions: ',
    message: /only READ and WRITE are permission keys \(found read\)/,
  },
  {
    rule: 'a key of another variant names that variant',
    yaml: 'variant: A\ncloudctl:\n  backoff:\n    multiplier: 2\n',
    at: '3:3: error: cloudctl.backoff: ',
    message: /'backoff' exists only in variant B, and this file is variant A/,
  },
  {
    rule: 'skip settings exist only in A and C',
    yaml: `variant: B\n${account('      skipServerSideApply: true\n')}`,
    at: '5:7: error: orchestrator.accounts[0].skipServerSideApply: ',
    message: /exists only in variant A and C, and this file is variant B/,
  },
  {
    rule: 'the variant is A, B or C',
    yaml: 'variant: D\n',
    at: '1:10: error: variant: ',
    message: /expected one of A, B, C, found the string 'D'/,
  },
  {
    rule: 'token and tokenCommand are not both set',
    yaml: 'cloudctl:\n  auth:\n    token: t\n    tokenCommand:\n      command: x\n',
    at: '5:7: error: cloudctl.auth.tokenCommand: ',
    message: /either auth.token or auth.tokenCommand, not both/,
  },
  {
    rule: 'ports are in range',
    yaml: 'server:\n  port: 70000\n',
    at: '2:9: error: server.port: ',
    message: /expected at most 65535, found number 70000/,
  },
  {
    rule: 'malformed YAML names its line',
    yaml: 'cloudctl:\n  grpc: [unclosed\n',
    at: '3:1: error: ',
    message: /invalid YAML/,
  },
];

describe('config validate rejects', () => {
  it.each(cases)('$rule', async ({ yaml, at, message }) => {
    const file = writeConfig(yaml);
    const result = await cli(['config', 'validate', file]);
    expect(result.code).toBe(1);
    const line = result.stderr.split('\n').find((l) => l.startsWith(`${file}:${at}`));
    expect(line, result.stderr).toBeDefined();
    expect(line).toMatch(message);
  });
});

describe('config validate', () => {
  it('reports every error of a file in one run, in file order', async () => {
    const file = writeConfig(
      'logging:\n  level: loud\ncloudctl:\n  backoff:\n    multiplier: 0\norchestrator:\n  accounts:\n    - context: x\n',
    );
    const result = await cli(['config', 'validate', file]);
    expect(result.code).toBe(1);
    const errors = result.stderr.split('\n').filter((l) => l.includes(': error: '));
    expect(errors.map((l) => l.slice(file.length + 1).split(':')[0])).toEqual(['2', '5', '8']);
    expect(result.stderr).toContain('invalid, 3 errors');
  });

  it('warns about an unknown key and names the nearest known one, without failing', async () => {
    const file = writeConfig('cloudctl:\n  keepAliveHeartbeatSecs: 5\ngrpc: x:1\n');
    const result = await cli(['config', 'validate', file]);
    expect(result.code).toBe(0);
    expect(result.stderr).toContain(
      `${file}:2:3: warning: cloudctl.keepAliveHeartbeatSecs: unknown key 'keepAliveHeartbeatSecs' is ignored; did you mean 'keepAliveHeartbeatSeconds'?`,
    );
    expect(result.stderr).toContain(
      `${file}:3:1: warning: grpc: unknown key 'grpc' is ignored; did you mean 'cloudctl.grpc'?`,
    );
  });

  it('warns that reconnectTimeoutMs has no effect in B and names the backoff setting to use', async () => {
    const file = writeConfig('variant: B\norchestrator:\n  reconnectTimeoutMs: 2500\n');
    const result = await cli(['config', 'validate', file]);
    expect(result.code).toBe(0);
    expect(result.stderr).toBe(
      `${file}:3:3: warning: orchestrator.reconnectTimeoutMs: has no effect in variant B: reconnects to the control plane follow cloudctl.backoff.* (baseDelay, multiplier, jitter, maxDelay); to wait 2500 ms after the first failure, set cloudctl.backoff.baseDelay: 2500000000`,
    );
  });

  it('takes reconnectTimeoutMs in A and C without a warning', async () => {
    for (const variant of ['A', 'C']) {
      const file = writeConfig(`variant: ${variant}\norchestrator:\n  reconnectTimeoutMs: 2500\n`);
      expect(await cli(['config', 'validate', file])).toMatchObject({ code: 0, stderr: '' });
    }
  });

  it('takes oAuthScopes without a warning: the Google token of a gcp user is asked with them', async () => {
    const file = writeConfig(
      `${account('      oAuthScopes: [https://www.googleapis.com/auth/cloud-platform]\n')}    - name: b\n      oAuthScopes: []\n`,
    );
    expect(await cli(['config', 'validate', file])).toMatchObject({ code: 0, stderr: '' });
  });

  it('ignores unused account properties without a warning', async () => {
    const file = writeConfig(account('      providerVersion: V2\n      cacheThreads: 4\n'));
    const result = await cli(['config', 'validate', file]);
    expect(result).toMatchObject({ code: 0, stderr: '' });
  });

  it('accepts log levels in any case and warning for warn', async () => {
    const file = writeConfig('logging:\n  level: WARNING\n');
    const printed = await cli(['config', 'print', file]);
    expect(printed.code).toBe(0);
    expect(printed.stdout).toMatch(/^ {2}level: warn$/m);
  });

  it('is a usage error (exit 2) without exactly one file', async () => {
    expect((await cli(['config', 'validate'])).code).toBe(2);
    expect((await cli(['config', 'validate', 'a', 'b'])).code).toBe(2);
  });

  it('reports a missing file as an invalid config naming the file', async () => {
    const result = await cli(['config', 'validate', '/nonexistent/agent.yaml']);
    expect(result.code).toBe(1);
    expect(result.stderr).toContain('/nonexistent/agent.yaml:1:1: error: cannot read the file: ENOENT');
  });
});

import { existsSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { formatIssue, loadConfig, printEffectiveConfig } from '../../../src/agent/config/index.ts';
import { writeConfig } from './config-fixture.ts';

const TOKEN = 's3cr3t-token-value';

describe('secret references', () => {
  it('resolve from the environment and from files when the agent runs', async () => {
    const file = writeConfig(
      'cloudctl:\n  auth:\n    token: encrypted:env!n:AGENT_TOKEN\n  tls:\n    clientKeyFilePassword: encrypted:file!f:pw.txt\n',
    );
    writeFileSync(join(dirname(file), 'pw.txt'), 'key-password\n');
    const loaded = await loadConfig(file, { fetchSecrets: true, env: { AGENT_TOKEN: TOKEN } });
    expect(loaded.ok).toBe(true);
    if (!loaded.ok) return;
    expect(loaded.config.cloudctl.auth.token).toBe(TOKEN);
    expect(loaded.config.cloudctl.tls.clientKeyFilePassword).toBe('key-password');
  });

  it('print shows the reference, never the value, and redacts inline secrets', async () => {
    const file = writeConfig(
      `cloudctl:\n  auth:\n    token: encrypted:env!n:AGENT_TOKEN\nserver:\n  ssl:\n    keyFilePassword: ${TOKEN}\n`,
    );
    const loaded = await loadConfig(file, { fetchSecrets: true, env: { AGENT_TOKEN: TOKEN } });
    if (!loaded.ok) throw new Error(loaded.issues.map(formatIssue).join('\n'));
    const printed = printEffectiveConfig(loaded);
    expect(printed).not.toContain(TOKEN);
    expect(printed).toContain('token: encrypted:env!n:AGENT_TOKEN');
    expect(printed).toContain('keyFilePassword: <redacted>');
  });

  it('report a missing variable with its key path and line, without any secret', async () => {
    const file = writeConfig('cloudctl:\n  auth:\n    token: encrypted:env!n:MISSING_TOKEN\n');
    const loaded = await loadConfig(file, { fetchSecrets: true, env: {} });
    expect(loaded.ok).toBe(false);
    expect(loaded.issues.map(formatIssue)).toEqual([
      `${file}:3:12: error: cloudctl.auth.token: environment variable MISSING_TOKEN is not set`,
    ]);
  });

  it('name the unknown engine and the missing parameter', async () => {
    const file = writeConfig(
      'cloudctl:\n  auth:\n    token: encrypted:vault!p:x\n  tls:\n    clientKeyFilePassword: encrypted:file!k:pw\n',
    );
    const loaded = await loadConfig(file, { fetchSecrets: false });
    expect(loaded.issues.map(formatIssue)).toEqual([
      `${file}:3:12: error: cloudctl.auth.token: unknown secrets engine 'vault'; available: file, env, k8s`,
      `${file}:5:28: error: cloudctl.tls.clientKeyFilePassword: the file engine needs 'f:' (path of the file holding the secret), for example encrypted:file!f:…`,
    ]);
  });

  it('encryptedFile: writes an env secret to a private file removed on dispose', async () => {
    const file = writeConfig('cloudctl:\n  tls:\n    cacertFile: encryptedFile:env!n:CA_PEM\n');
    const loaded = await loadConfig(file, { fetchSecrets: true, env: { CA_PEM: 'PEM DATA' } });
    if (!loaded.ok) throw new Error(loaded.issues.map(formatIssue).join('\n'));
    const path = loaded.config.cloudctl.tls.cacertFile ?? '';
    expect(readFileSync(path, 'utf8')).toBe('PEM DATA');
    expect(statSync(path).mode & 0o777).toBe(0o600);
    await loaded.dispose();
    expect(existsSync(path)).toBe(false);
  });

  it('are checked but not fetched by validate', async () => {
    const file = writeConfig('cloudctl:\n  auth:\n    token: encrypted:env!n:NOT_HERE\n');
    const loaded = await loadConfig(file, { fetchSecrets: false, env: {} });
    expect(loaded.ok).toBe(true);
  });
});

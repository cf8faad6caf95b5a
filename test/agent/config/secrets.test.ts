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
      'cloudctl:\n  auth:\n    token: encrypted:s3!p:x\n  tls:\n    clientKeyFilePassword: encrypted:file!k:pw\n',
    );
    const loaded = await loadConfig(file, { fetchSecrets: false });
    expect(loaded.issues.map(formatIssue)).toEqual([
      `${file}:3:12: error: cloudctl.auth.token: unknown secrets engine 's3'; available: file, env, k8s, vault`,
      `${file}:5:28: error: cloudctl.tls.clientKeyFilePassword: the file engine needs 'f:' (path of the file holding the secret), for example encrypted:file!f:…`,
    ]);
  });

  it('name the vault engine as off while secrets.store.vault is not enabled, without fetching', async () => {
    const file = writeConfig('cloudctl:\n  auth:\n    token: encrypted:vault!e:secret!p:agent!k:token\n');
    const loaded = await loadConfig(file, { fetchSecrets: false });
    expect(loaded.issues.map(formatIssue)).toEqual([
      `${file}:3:12: error: cloudctl.auth.token: the vault engine is off: set secrets.store.vault.enabled: true and its url`,
    ]);
  });

  it('need a url to turn the vault engine on, and a role for Kubernetes auth', async () => {
    const file = writeConfig(
      'secrets:\n  store:\n    vault:\n      enabled: true\n      authMethod: kubernetes\n',
    );
    const loaded = await loadConfig(file, { fetchSecrets: false });
    expect(loaded.issues.map(formatIssue)).toEqual([
      `${file}:4:7: error: secrets.store.vault.url: secrets.store.vault.enabled: true needs url`,
      `${file}:4:7: error: secrets.store.vault.role: authMethod: KUBERNETES needs role`,
    ]);
  });

  it("point the original product's secrets.vault to secrets.store.vault, and never print a Vault token", async () => {
    const file = writeConfig(
      `secrets:\n  vault:\n    enabled: true\n  store:\n    vault:\n      enabled: true\n      url: http://127.0.0.1:8200\n      token: ${TOKEN}\n`,
    );
    const loaded = await loadConfig(file, { fetchSecrets: true });
    if (!loaded.ok) throw new Error(loaded.issues.map(formatIssue).join('\n'));
    expect(loaded.issues.map(formatIssue)).toEqual([
      `${file}:2:3: warning: secrets.vault: unknown key 'vault' is ignored; did you mean 'store.vault'? ('vault' is the original product's name for it)`,
    ]);
    const printed = printEffectiveConfig(loaded);
    expect(printed).not.toContain(TOKEN);
    expect(printed).toContain('token: <redacted>');
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

import { load } from 'js-yaml';
import { describe, expect, it } from 'vitest';
import { isRecord } from '../../../src/lib/is-record.ts';
import { cli, writeConfig } from './config-fixture.ts';

function flatten(value: unknown, prefix = ''): Map<string, unknown> {
  const out = new Map<string, unknown>();
  if (isRecord(value) && Object.keys(value).length > 0) {
    for (const [k, v] of Object.entries(value)) {
      for (const [p, leaf] of flatten(v, prefix ? `${prefix}.${k}` : k)) out.set(p, leaf);
    }
  } else out.set(prefix, value);
  return out;
}

async function effective(variant: string) {
  const printed = await cli(['config', 'print', writeConfig(`variant: ${variant}\n`)]);
  expect(printed.code).toBe(0);
  return flatten(load(printed.stdout));
}

describe('config print of an empty file', () => {
  it('differs between A and B exactly where the spec tables differ', async () => {
    const a = await effective('A');
    const b = await effective('B');
    const changed = [...a.keys()].filter(
      (k) => b.has(k) && JSON.stringify(a.get(k)) !== JSON.stringify(b.get(k)),
    );
    expect(Object.fromEntries(changed.map((k) => [k, [a.get(k), b.get(k)]]))).toEqual({
      variant: ['A', 'B'],
      'cloudctl.keepAliveHeartbeatSeconds': [60, 20],
      'cloudctl.insecure': [false, true],
      'cloudctl.responseRetries.maxRetries': [1200, 3],
      'tasks.totalBudget': [0, 1000],
      'tasks.budgetPerAccount': [0, 50],
    });
    const onlyB = [...b.keys()].filter((k) => !a.has(k)).sort();
    expect(onlyB).toEqual(
      [
        'cloudctl.backoff.baseDelay',
        'cloudctl.backoff.jitter',
        'cloudctl.backoff.maxDelay',
        'cloudctl.backoff.multiplier',
        'cloudctl.keepAliveOperationSeconds',
        'dynamicAccounts.credentialScanNamePatterns',
        'dynamicAccounts.enabled',
        'dynamicAccounts.interceptor.enabled',
        'dynamicAccounts.namePatterns',
        'dynamicAccounts.scanBatchSize',
        'dynamicAccounts.scanFrequencySeconds',
        'logging.compress',
        'logging.fields',
        'logging.localTime',
        'logging.maxAgeDays',
        'logging.maxBackups',
        'logging.maxSizeMb',
        'logging.multiWrite',
        'orchestrator.cacheGroupDelayMs',
        'orchestrator.cacheGroupSize',
        'orchestrator.serverSideApply.clearManagedFields',
        'orchestrator.serverSideApply.enabled',
        'orchestrator.serverSideApply.kinds',
        'orchestrator.serverSideApply.manifestDefaults',
      ].sort(),
    );
    expect([...a.keys()].filter((k) => !b.has(k))).toEqual([]);
  });

  it('fills the spec defaults of B', async () => {
    const b = await effective('B');
    expect(b.get('cloudctl.backoff.baseDelay')).toBe(1_000_000_000);
    expect(b.get('cloudctl.backoff.maxDelay')).toBe(120_000_000_000);
    expect(b.get('cloudctl.backoff.multiplier')).toBe(1.6);
    expect(b.get('cloudctl.backoff.jitter')).toBe(0.2);
    expect(b.get('cloudctl.grpc')).toBe('localhost:9091');
    expect(b.get('orchestrator.retries.retryableErrors')).toEqual(['timeout', 'deadline exceeded']);
    expect(b.get('dynamicAccounts.scanBatchSize')).toBe(572);
    expect(b.get('server.port')).toBe(8082);
    expect(b.get('telemetry.port')).toBe(8008);
    expect(b.get('pprof.port')).toBe(6060);
    expect(b.get('tasks.queueCheckFrequencyMs')).toBe(2000);
  });

  it('gives C the dynamic accounts switch and A and C the skip settings on accounts', async () => {
    const c = await effective('C');
    expect(c.get('dynamicAccountsEnabled')).toBe(true);
    const printed = await cli([
      'config',
      'print',
      writeConfig('variant: C\norchestrator:\n  accounts:\n    - name: x\n'),
    ]);
    expect(printed.stdout).toMatch(/skipServerSideApply: false/);
    expect(printed.stdout).toMatch(/skipManifestDefaults: false/);
  });

  it('defaults to variant B', async () => {
    const printed = await cli(['config', 'print', writeConfig('{}\n')]);
    expect(printed.stdout).toMatch(/^variant: B$/m);
  });
});

import { execFileSync } from 'node:child_process';
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { Writable } from 'node:stream';
import { setTimeout as sleep } from 'node:timers/promises';
import { describe, expect, it } from 'vitest';
import { type AgentConfig, formatIssue, loadConfig } from '../../../src/agent/config/index.ts';
import { createLogger } from '../../../src/agent/observability/logger.ts';
import { tempDir } from '../../support/temp-dir.ts';
import { writeConfig } from '../config/config-fixture.ts';

async function configFrom(yaml: string): Promise<AgentConfig> {
  const loaded = await loadConfig(writeConfig(yaml), { fetchSecrets: false });
  if (!loaded.ok) throw new Error(loaded.issues.map(formatIssue).join('\n'));
  return loaded.config;
}

function memoryStream() {
  const chunks: string[] = [];
  const stream = new Writable({
    write(chunk, _enc, done) {
      chunks.push(String(chunk));
      done();
    },
  });
  return { stream, lines: () => chunks.join('').split('\n').filter(Boolean) };
}

const deps = (stdout: Writable, env: NodeJS.ProcessEnv = {}) => ({
  stdout,
  context: { env, readNamespaceFile: () => undefined },
  onInternalError: (error: Error) => {
    throw error;
  },
  now: Date.now,
});

describe('logger', () => {
  it('rotates past maxSizeMb, keeps at most maxBackups, and gzips rotated files readably', async () => {
    const dir = tempDir();
    const config = await configFrom(
      `logging:\n  file: ${dir}/agent.log\n  format: json\n  maxSizeMb: 1\n  maxBackups: 2\n  compress: true\n`,
    );
    const { logger, close } = await createLogger(config, deps(memoryStream().stream));
    const filler = 'x'.repeat(1000);
    for (let i = 0; i < 4600; i++) {
      logger.info({ i, filler }, 'filler line');
      if (i % 200 === 0) await sleep(5);
    }
    await sleep(200);
    await close();

    const files = readdirSync(dir).sort();
    const gz = files.filter((f) => f.endsWith('.gz'));
    const plain = files.filter((f) => f.endsWith('.log'));
    expect(plain).toHaveLength(1);
    expect(gz.length).toBeGreaterThanOrEqual(1);
    expect(gz.length).toBeLessThanOrEqual(2);
    const numbers = (text: string) =>
      text
        .trim()
        .split('\n')
        .map((line) => Number(JSON.parse(line).i));
    const rotated = gz.map((name) => {
      // gunzip itself must read them, not only our zlib.
      const text = execFileSync('gunzip', ['-c', join(dir, name)], { encoding: 'utf8', maxBuffer: 64 << 20 });
      // A file is rotated once it reaches maxSizeMb. pino-roll counts bytes still in flight to the old
      // file against the new one, so a file may be cut early, but none grows far past the limit.
      expect(Buffer.byteLength(text)).toBeLessThan((1 << 20) + (512 << 10));
      return numbers(text);
    });
    const active = numbers(readFileSync(join(dir, plain[0] ?? ''), 'utf8'));
    // No line is lost or repeated across rotations: the kept files hold one consecutive run up to the end.
    const kept = [...rotated, active].sort((a, b) => (a[0] ?? 0) - (b[0] ?? 0)).flat();
    const first = kept[0] ?? 0;
    expect(kept).toEqual(Array.from({ length: 4600 - first }, (_, k) => first + k));
    expect(active.at(-1)).toBe(4599);
  });

  it('writes one human-readable line per entry in text format', async () => {
    const out = memoryStream();
    const config = await configFrom('logging:\n  format: text\n');
    const { logger, close } = await createLogger(config, deps(out.stream));
    logger.info({ account: 'prod', attempt: 3 }, 'connected');
    await close();
    expect(out.lines()).toHaveLength(1);
    expect(out.lines()[0]).toMatch(
      /^\[\d{4}-\d\d-\d\d \d\d:\d\d:\d\d\.\d{3} [+-]\d{4}\] INFO: connected \{"account":"prod","attempt":3\}$/,
    );
  });

  it('writes JSON lines with an ISO time, and never a secret field', async () => {
    const out = memoryStream();
    const config = await configFrom('logging:\n  format: json\n  localTime: false\n');
    const { logger, close } = await createLogger(config, deps(out.stream));
    logger.warn({ token: 'tok-123', headers: { authorization: 'Bearer tok-123' } }, 'calling');
    await close();
    const entry = JSON.parse(out.lines()[0] ?? '');
    expect(entry.time).toMatch(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/);
    expect(entry.level).toBe(40);
    expect(out.lines()[0]).not.toContain('tok-123');
    expect(entry.token).toBe('<redacted>');
  });

  it('filters by level, with panic above fatal', async () => {
    const out = memoryStream();
    const config = await configFrom('logging:\n  format: json\n  level: FATAL\n');
    const { logger, close } = await createLogger(config, deps(out.stream));
    logger.error('dropped');
    logger.fatal('kept');
    logger.panic('kept too');
    await close();
    expect(out.lines().map((l) => JSON.parse(l).msg)).toEqual(['kept', 'kept too']);
  });

  it('adds logging.fields and detects agentNamespace and agentCluster when left empty (B)', async () => {
    const out = memoryStream();
    const config = await configFrom(
      'logging:\n  format: json\n  fields:\n    team: payments\n    agentNamespace: ""\n',
    );
    const { logger, close } = await createLogger(
      config,
      deps(out.stream, {
        POD_NAMESPACE: 'orch',
        KUBERNETES_SERVICE_HOST: '10.0.0.1',
        KUBERNETES_SERVICE_PORT: '443',
      }),
    );
    logger.info('hello');
    await close();
    expect(JSON.parse(out.lines()[0] ?? '')).toMatchObject({
      team: 'payments',
      agentNamespace: 'orch',
      agentCluster: '10.0.0.1:443',
    });
  });

  it('writes to the file and standard output together with multiWrite', async () => {
    const dir = tempDir();
    const out = memoryStream();
    const config = await configFrom(`logging:\n  file: ${dir}/a.log\n  format: json\n  multiWrite: true\n`);
    const { logger, close } = await createLogger(config, deps(out.stream));
    logger.info('both');
    await close();
    expect(out.lines()).toHaveLength(1);
    const [file] = readdirSync(dir);
    expect(readFileSync(join(dir, file ?? ''), 'utf8')).toContain('"msg":"both"');
  });
});

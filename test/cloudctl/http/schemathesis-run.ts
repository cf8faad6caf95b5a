// Running schemathesis against a cloudctl: the pinned binary from the test tools' environment, the
// settings file (schemathesis.toml beside this file, plus per-operation lines read from the served
// document), and a run in a temporary directory, so schemathesis writes nothing into the repository.
// fuzz.test.ts runs it on an empty system, fuzz-populated.cluster.test.ts on one with data.
import { spawn, spawnSync } from 'node:child_process';
import { readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { expect } from 'vitest';
import { pythonToolPath, SCHEMATHESIS_VERSION } from '../../tools/python-tools.ts';

/** The pinned version's options and settings file are what the tests use; npm test's pretest installs it. */
export const SCHEMATHESIS = pythonToolPath('schemathesis');
const SETTINGS = join(import.meta.dirname, 'schemathesis.toml');

/** Fails the test at once when the pinned schemathesis is not installed. */
export function expectSchemathesis(): void {
  const run = spawnSync(SCHEMATHESIS, ['--version'], { encoding: 'utf8' });
  const version =
    run.error === undefined && run.status === 0 ? /version (\S+)/.exec(run.stdout)?.[1] : undefined;
  if (version !== SCHEMATHESIS_VERSION) {
    expect.fail(
      `this test needs schemathesis ${SCHEMATHESIS_VERSION} at ${SCHEMATHESIS} (found ${version ?? 'none'}); ` +
        'npm test installs it first (or run `npm run cluster:build`)',
    );
  }
}

/**
 * Writes the settings file into `dir`: schemathesis.toml, then `extra` (TOML), then a line per
 * operation whose success answer has no body. Swagger 2.0 gives media types per operation, not per
 * status, so schemathesis wants the operation's JSON even from a 204, which has no body and, by RFC
 * 9110, no Content-Type: those are read from the document, not listed by hand.
 */
export async function settingsFor(url: string, dir: string, extra = ''): Promise<string> {
  const document = (await (await fetch(`${url}/v2/api-docs`)).json()) as {
    paths: Record<string, Record<string, { responses?: Record<string, { schema?: unknown }> }>>;
  };
  const bodiless: string[] = [];
  for (const [path, operations] of Object.entries(document.paths)) {
    for (const [method, operation] of Object.entries(operations)) {
      const answers = Object.entries(operation.responses ?? {});
      if (answers.some(([status, answer]) => Number(status) < 400 && answer.schema === undefined)) {
        bodiless.push(
          [
            '[[operations]]',
            `include-path = ${JSON.stringify(path)}`,
            `include-method = ${JSON.stringify(method.toUpperCase())}`,
            'checks.content_type_conformance.enabled = false',
          ].join('\n'),
        );
      }
    }
  }
  const file = join(dir, 'schemathesis.toml');
  await writeFile(file, [extra, await readFile(SETTINGS, 'utf8'), ...bodiless, ''].join('\n\n'));
  return file;
}

/** What a run is given: its settings file, the server, a user's token, its bounds, and what else to select. */
export interface RunPlan {
  settings: string;
  url: string;
  token: string;
  maxExamples: number;
  seconds: number;
  /** Makes a run repeatable. */
  seed: number;
  /** More options of `schemathesis run` (operation selection, generation mode). */
  extra?: string[];
}

/** `schemathesis run`'s command line for the plan. */
export function runArguments(plan: RunPlan): string[] {
  return [
    '--config-file',
    plan.settings,
    'run',
    `${plan.url}/v2/api-docs`,
    '--header',
    `Authorization: Bearer ${plan.token}`,
    ...(plan.extra ?? []),
    '--max-examples',
    String(plan.maxExamples),
    '--max-time',
    String(plan.seconds),
    '--seed',
    String(plan.seed),
    // Examples found failing are not replayed from a database of earlier runs: a run depends on
    // its seed alone.
    '--generation-database',
    'none',
    // cloudctl refuses U+0000 in any string with 400 (PostgreSQL cannot store it), which Swagger 2.0
    // cannot say short of a pattern on every string; fuzz.test.ts checks the refusal.
    '--generation-allow-x00',
    'false',
    '--request-timeout',
    '10',
    '--workers',
    '1',
    '--no-color',
  ];
}

export function runSchemathesis(
  dir: string,
  args: string[],
): Promise<{ code: number | null; output: string }> {
  return new Promise((resolve, reject) => {
    const child = spawn(SCHEMATHESIS, args, { cwd: dir, stdio: ['ignore', 'pipe', 'pipe'] });
    let output = '';
    child.stdout.on('data', (chunk: Buffer) => {
      output += chunk.toString();
    });
    child.stderr.on('data', (chunk: Buffer) => {
      output += chunk.toString();
    });
    child.on('error', reject);
    child.on('close', (code) => resolve({ code, output }));
  });
}

/** Fails unless the run passed and tested every operation it selected (a run that tested nothing passes too). */
export function expectEveryOperationTested(
  run: { code: number | null; output: string },
  report: string,
): void {
  if (run.code !== 0) expect.fail(`schemathesis found failures (exit ${run.code}):\n${report}`);
  const tested = /Selected: (\d+)\/(\d+)\s+Tested: (\d+)/.exec(run.output);
  expect(tested, report).not.toBeNull();
  const [, selected, , done] = tested ?? [];
  expect(Number(selected), report).toBeGreaterThan(10);
  expect(done, report).toEqual(selected);
}

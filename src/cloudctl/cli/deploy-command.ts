// `deploy -f FILE`: checks a deployment file here (every problem, located, before anything is sent),
// inlines the manifests its paths name, submits it to cloudctl's HTTP API and follows it, printing its
// log as it grows and the verdict at the end. Exit 0 only when the deployment succeeded. Ctrl-C stops
// following, not the deployment. The token comes from CLOUDCTL_TOKEN, never from the command line,
// where other users of the machine could read it.
import { readFile } from 'node:fs/promises';
import { basename } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { parseArgs } from 'node:util';
import { dump, load } from 'js-yaml';
import { z } from 'zod';
import type { CliIo } from '../../lib/cli-io.ts';
import { EXIT, UsageError } from '../../lib/command-line.ts';
import { formatIssue } from '../../lib/config-issue.ts';
import { isRecord } from '../../lib/is-record.ts';
import { type LoadedDeployment, loadDeploymentFile } from '../deployments/index.ts';

export const DEFAULT_SERVER = 'http://localhost:7002';

/** Exit status of a deployment that ran and did not succeed, or that cloudctl refused. */
const DEPLOYMENT_FAILED = 1;

export interface DeployOptions {
  file: string;
  server: string;
  token: string | undefined;
  /** Submit and print the id without following. */
  wait: boolean;
  pollMs: number;
}

/** The options, or 'help' when -h/--help asks for the usage (it wins over every other problem). */
export function parseDeployCommandLine(args: string[], env: NodeJS.ProcessEnv): DeployOptions | 'help' {
  let parsed: ReturnType<typeof parseDeployArgs>;
  try {
    parsed = parseDeployArgs(args);
  } catch (error) {
    if (args.includes('--help') || args.includes('-h')) return 'help';
    throw new UsageError(error instanceof Error ? error.message : String(error));
  }
  const { values, positionals } = parsed;
  if (values.help === true) return 'help';
  if (positionals.length > 0)
    throw new UsageError(`'deploy' takes no positional arguments (found ${positionals.join(' ')})`);
  if (values.file === undefined) throw new UsageError("'deploy' needs -f FILE");
  const server = values.server ?? env.CLOUDCTL_URL ?? DEFAULT_SERVER;
  if (!/^https?:\/\//.test(server))
    throw new UsageError(`--server must be an http:// or https:// URL, found '${server}'`);
  return {
    file: values.file,
    server: server.replace(/\/+$/, ''),
    token: env.CLOUDCTL_TOKEN === '' ? undefined : env.CLOUDCTL_TOKEN,
    wait: values['no-wait'] !== true,
    pollMs: 1000,
  };
}

function parseDeployArgs(args: string[]) {
  return parseArgs({
    args,
    allowPositionals: true,
    options: {
      help: { type: 'boolean', short: 'h' },
      file: { type: 'string', short: 'f' },
      server: { type: 'string', short: 's' },
      'no-wait': { type: 'boolean' },
    },
  });
}

/** The file as cloudctl takes it over HTTP: every `path` entry of `manifests` replaced by its objects, inline. */
export function inlinedDeploymentFile(text: string, loaded: LoadedDeployment): string {
  const raw = load(text);
  if (!isRecord(raw)) return text;
  raw.manifests = loaded.manifests.map((manifest) => ({
    inline: manifest.objects.map((object) => dump(object, { lineWidth: -1, noRefs: true })).join('---\n'),
    targets: manifest.targets,
  }));
  return dump(raw, { lineWidth: -1, noRefs: true });
}

const answerSchema = z.looseObject({
  id: z.string(),
  status: z.string(),
  targets: z.array(
    z.looseObject({
      name: z.string(),
      status: z.string(),
      message: z.string().optional(),
      steps: z.array(z.looseObject({ key: z.string(), kind: z.string(), status: z.string() })),
    }),
  ),
  log: z.array(z.object({ at: z.string(), target: z.string().optional(), message: z.string() })),
});
type Answer = z.infer<typeof answerSchema>;

async function call(options: DeployOptions, method: string, path: string, body?: unknown) {
  const response = await fetch(`${options.server}${path}`, {
    method,
    headers: {
      ...(options.token === undefined ? {} : { authorization: `Bearer ${options.token}` }),
      ...(body === undefined ? {} : { 'content-type': 'application/json' }),
    },
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
  });
  const text = await response.text();
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch {
    json = undefined;
  }
  return { status: response.status, json, text };
}

function refusal(status: number, json: unknown, text: string): string {
  const message = isRecord(json) && typeof json.message === 'string' ? json.message : text;
  return `cloudctl refused the deployment (${status}): ${message}`;
}

export async function deployCommand(options: DeployOptions, io: CliIo): Promise<number> {
  const loaded = await loadDeploymentFile(options.file);
  if (!loaded.ok) {
    for (const issue of loaded.issues) io.err(formatIssue(issue));
    return EXIT.invalidConfig;
  }
  const text = inlinedDeploymentFile(await readFile(options.file, 'utf8'), loaded);
  let submitted: Awaited<ReturnType<typeof call>>;
  try {
    submitted = await call(options, 'POST', '/deployments', { file: text, fileName: basename(options.file) });
  } catch (error) {
    io.err(
      `cloudctl deploy: cannot reach ${options.server}: ${error instanceof Error ? error.message : String(error)}`,
    );
    return DEPLOYMENT_FAILED;
  }
  if (submitted.status !== 202) {
    io.err(refusal(submitted.status, submitted.json, submitted.text));
    if (submitted.status === 401) io.err('Set CLOUDCTL_TOKEN to a token cloudctl knows.');
    return DEPLOYMENT_FAILED;
  }
  const started = answerSchema.parse(submitted.json);
  io.out(
    `deployment ${started.id} of ${loaded.deployment.application} started: ${options.server}/deployments/${started.id}`,
  );
  if (!options.wait) return EXIT.ok;
  return follow(options, started, io);
}

async function follow(options: DeployOptions, first: Answer, io: CliIo): Promise<number> {
  let printed = 0;
  const hinted = new Set<string>();
  let stopped = false;
  const stop = io.stopSignal().then(() => {
    stopped = true;
  });
  let current = first;
  for (;;) {
    for (const entry of current.log.slice(printed)) {
      io.out(
        `${entry.at.slice(11, 19)} ${entry.target === undefined ? '' : `[${entry.target}] `}${entry.message}`,
      );
    }
    printed = current.log.length;
    for (const target of current.targets) {
      for (const step of target.steps) {
        if (step.kind !== 'approval' || step.status !== 'RUNNING' || hinted.has(step.key)) continue;
        hinted.add(step.key);
        io.out(
          `waiting for approval of ${step.key}: POST ${options.server}/deployments/${current.id}/approve (or /reject) with {"target": "${target.name}"}`,
        );
      }
    }
    if (current.status !== 'RUNNING') break;
    await Promise.race([sleep(options.pollMs), stop]);
    if (stopped) {
      io.out(`stopped following; the deployment goes on: ${options.server}/deployments/${current.id}`);
      return DEPLOYMENT_FAILED;
    }
    const answer = await call(options, 'GET', `/deployments/${current.id}`).catch(() => undefined);
    if (answer?.status === 200) current = answerSchema.parse(answer.json);
  }
  for (const target of current.targets)
    io.out(
      `target ${target.name}: ${target.status}${target.message === undefined ? '' : ` (${target.message})`}`,
    );
  io.out(`deployment ${current.id} ${current.status}`);
  return current.status === 'SUCCEEDED' ? EXIT.ok : DEPLOYMENT_FAILED;
}

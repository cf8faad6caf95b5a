// `deploy -f FILE`: checks a deployment file here (every problem, located, before anything is sent),
// inlines the manifests its paths name, submits it to cloudctl's HTTP API and follows it, printing its
// log as it grows and the verdict at the end, following it through GET /watch (its `deployment`
// events) and polling GET /deployments/{id} only when the server has no /watch. Exit 0 only when the
// deployment succeeded. Ctrl-C stops following, not the deployment. The token comes from
// CLOUDCTL_TOKEN or the context `cloudctl login` stored, never from the command line, where other
// users of the machine could read it.
import { readFile } from 'node:fs/promises';
import { basename } from 'node:path';
import { dump, load } from 'js-yaml';
import { z } from 'zod';
import type { CliIo } from '../../lib/cli-io.ts';
import { EXIT } from '../../lib/command-line.ts';
import { formatIssue } from '../../lib/config-issue.ts';
import { isRecord } from '../../lib/is-record.ts';
import { type LoadedDeployment, loadDeploymentFile } from '../deployments/index.ts';
import { type ApiClient, followRecord } from './client/index.ts';

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

function refusal(status: number, json: unknown, text: string): string {
  const message = isRecord(json) && typeof json.message === 'string' ? json.message : text;
  return `cloudctl refused the deployment (${status}): ${message}`;
}

export interface DeployOptions {
  file: string;
  /** Submit and print the id without following. */
  wait: boolean;
  pollMs: number;
}

/**
 * The body POST /deployments (and POST /deployments/plans) takes for the file, with the application it
 * deploys; undefined after printing every problem of a file that is not valid.
 */
export async function deploymentRequest(
  file: string,
  io: CliIo,
): Promise<{ body: { file: string; fileName: string }; application: string } | undefined> {
  const loaded = await loadDeploymentFile(file);
  if (!loaded.ok) {
    for (const issue of loaded.issues) io.err(formatIssue(issue));
    return undefined;
  }
  const text = inlinedDeploymentFile(await readFile(file, 'utf8'), loaded);
  return { body: { file: text, fileName: basename(file) }, application: loaded.deployment.application };
}

export async function deployCommand(options: DeployOptions, client: ApiClient, io: CliIo): Promise<number> {
  const request = await deploymentRequest(options.file, io);
  if (request === undefined) return EXIT.invalidConfig;
  const submitted = await client.send('POST', '/deployments', request.body);
  if (submitted.status !== 202) {
    io.err(refusal(submitted.status, submitted.json, submitted.text));
    if (submitted.status === 401)
      io.err(
        `Set CLOUDCTL_TOKEN, or sign in with 'cloudctl login ${client.server}', with a token cloudctl knows.`,
      );
    return EXIT.failed;
  }
  const started = answerSchema.parse(submitted.json);
  io.out(
    `deployment ${started.id} of ${request.application} started: ${client.server}/deployments/${started.id}`,
  );
  if (!options.wait) return EXIT.ok;
  return follow(options.pollMs, client, request.application, started, io);
}

/** Follows a deployment started another way (`apply-plan` of a deployment's plan) as `deploy -f` does its own. */
export async function followDeployment(
  id: string,
  client: ApiClient,
  io: CliIo,
  pollMs: number,
): Promise<number> {
  const started = await client.get(
    `/deployments/${encodeURIComponent(id)}`,
    answerSchema.extend({ application: z.string() }),
  );
  return follow(pollMs, client, started.application, started, io);
}

/** Prints what is new in each state of the deployment it is shown: log entries and approval hints. */
function progressPrinter(server: string, io: CliIo) {
  let printed = 0;
  const hinted = new Set<string>();
  return (current: Answer): void => {
    for (const entry of current.log.slice(printed)) {
      io.out(
        `${entry.at.slice(11, 19)} ${entry.target === undefined ? '' : `[${entry.target}] `}${entry.message}`,
      );
    }
    printed = Math.max(printed, current.log.length);
    for (const target of current.targets) {
      for (const step of target.steps) {
        if (step.kind !== 'approval' || step.status !== 'RUNNING' || hinted.has(step.key)) continue;
        hinted.add(step.key);
        io.out(
          `waiting for approval of ${step.key}: POST ${server}/deployments/${current.id}/approve (or /reject) with {"target": "${target.name}"}`,
        );
      }
    }
  };
}

async function follow(
  pollMs: number,
  client: ApiClient,
  application: string,
  first: Answer,
  io: CliIo,
): Promise<number> {
  const current = await followRecord(client, io, {
    first,
    query: { events: 'deployment', application },
    event: 'deployment',
    fromEvent: (data) => {
      const parsed = z.object({ deployment: answerSchema }).safeParse(data);
      return parsed.success && parsed.data.deployment.id === first.id ? parsed.data.deployment : undefined;
    },
    read: async () => {
      const answer = await client.send('GET', `/deployments/${first.id}`).catch(() => undefined);
      return answer?.status === 200 ? answerSchema.parse(answer.json) : undefined;
    },
    newer: (next, seen) => next.log.length >= seen.log.length,
    ended: (deployment) => deployment.status !== 'RUNNING',
    print: progressPrinter(client.server, io),
    pollMs,
  });
  if (current.status === 'RUNNING') {
    io.out(`stopped following; the deployment goes on: ${client.server}/deployments/${current.id}`);
    return EXIT.failed;
  }
  for (const target of current.targets)
    io.out(
      `target ${target.name}: ${target.status}${target.message === undefined ? '' : ` (${target.message})`}`,
    );
  io.out(`deployment ${current.id} ${current.status}`);
  return current.status === 'SUCCEEDED' ? EXIT.ok : EXIT.failed;
}

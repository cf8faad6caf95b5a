// `deploy -f FILE`: checks a deployment file here (every problem, located, before anything is sent),
// inlines the manifests its paths name, submits it to cloudctl's HTTP API and follows it, printing its
// log as it grows and the verdict at the end, following it through GET /watch (its `deployment`
// events) and polling GET /deployments/{id} only when the server has no /watch. Exit 0 only when the
// deployment succeeded. Ctrl-C stops following, not the deployment. The token comes from
// CLOUDCTL_TOKEN or the context `cloudctl login` stored, never from the command line, where other
// users of the machine could read it.
import { readFile } from 'node:fs/promises';
import { basename } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { dump, load } from 'js-yaml';
import { z } from 'zod';
import type { CliIo } from '../../lib/cli-io.ts';
import { EXIT } from '../../lib/command-line.ts';
import { formatIssue } from '../../lib/config-issue.ts';
import { isRecord } from '../../lib/is-record.ts';
import { type LoadedDeployment, loadDeploymentFile } from '../deployments/index.ts';
import { type ApiClient, followWatch, stopController } from './client/index.ts';

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

export async function deployCommand(options: DeployOptions, client: ApiClient, io: CliIo): Promise<number> {
  const loaded = await loadDeploymentFile(options.file);
  if (!loaded.ok) {
    for (const issue of loaded.issues) io.err(formatIssue(issue));
    return EXIT.invalidConfig;
  }
  const text = inlinedDeploymentFile(await readFile(options.file, 'utf8'), loaded);
  const submitted = await client.send('POST', '/deployments', {
    file: text,
    fileName: basename(options.file),
  });
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
    `deployment ${started.id} of ${loaded.deployment.application} started: ${client.server}/deployments/${started.id}`,
  );
  if (!options.wait) return EXIT.ok;
  return follow(options, client, loaded.deployment.application, started, io);
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
  options: DeployOptions,
  client: ApiClient,
  application: string,
  first: Answer,
  io: CliIo,
): Promise<number> {
  const stop = stopController(io);
  const print = progressPrinter(client.server, io);
  let current = first;
  print(current);
  const fetchCurrent = async () => {
    const answer = await client.send('GET', `/deployments/${current.id}`).catch(() => undefined);
    if (answer?.status === 200) current = answerSchema.parse(answer.json);
  };
  const show = (answer: Answer) => {
    // Events and a catch-up read may arrive out of order: never step back to an older log.
    if (answer.log.length >= current.log.length) current = answer;
    print(current);
    return current.status !== 'RUNNING';
  };
  if (current.status === 'RUNNING') {
    const outcome = await followWatch(client, {
      query: { events: 'deployment', application },
      signal: stop.signal,
      onReconnect: (reason) => io.err(`watch: ${reason}; reconnecting`),
      onEvent: async (event) => {
        // The stream starts now: read the deployment once so what happened since the POST is shown.
        if (event.event === 'position' || event.event === 'reset') {
          await fetchCurrent();
          return show(current);
        }
        if (event.event !== 'deployment') return false;
        const parsed = z.object({ deployment: answerSchema }).safeParse(JSON.parse(event.data));
        if (!parsed.success || parsed.data.deployment.id !== current.id) return false;
        return show(parsed.data.deployment);
      },
    });
    if (outcome === 'absent') await poll(options, fetchCurrent, () => show(current), stop.signal);
  }
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

/** A cloudctl without GET /watch: read the deployment every pollMs until it ends or Ctrl-C. */
async function poll(
  options: DeployOptions,
  fetchCurrent: () => Promise<void>,
  done: () => boolean,
  signal: AbortSignal,
): Promise<void> {
  while (!signal.aborted) {
    await sleep(options.pollMs, undefined, { signal }).catch(() => {});
    if (signal.aborted) return;
    await fetchCurrent();
    if (done()) return;
  }
}

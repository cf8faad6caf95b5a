// `cloudctl apply-plan ID`: POST /plans/{id}/apply, which runs exactly the planned manifests only while
// every planned object is still as the plan saw it, then follows what it started: a task (a plan of
// operations) through GET /task/{id}, a deployment (a deployment file's plan) as `deploy -f` follows
// one. A 409 (objects moved since the plan, or the plan applied already) and a 410 (expired) print the
// server's message, which names the moved objects or the earlier task, and exit 1.
import { z } from 'zod';
import type { CliIo } from '../../../lib/cli-io.ts';
import { EXIT } from '../../../lib/command-line.ts';
import {
  type ApiClient,
  CliError,
  CONNECTION_HELP,
  CONNECTION_OPTIONS,
  serverMessage,
  withClient,
} from '../client/index.ts';
import type { CommandSpec } from '../command-line/index.ts';
import { followTask } from './task-progress.ts';

const POLL_MS = 1000;

const startedSchema = z.looseObject({ id: z.string(), resourceUri: z.string() });

export async function applyPlan(id: string, wait: boolean, client: ApiClient, io: CliIo): Promise<number> {
  const path = `/plans/${encodeURIComponent(id)}/apply`;
  const answer = await client.send('POST', path);
  if (answer.status === 409)
    throw new CliError('REQUEST_FAILED', `plan ${id} was not applied (409): ${serverMessage(answer)}`);
  if (answer.status === 410)
    throw new CliError(
      'REQUEST_FAILED',
      `plan ${id} expired (410): ${serverMessage(answer)}; plan again (cloudctl plan -f FILE, or cloudctl deploy -f FILE --plan) and apply the new plan`,
    );
  if (answer.status < 200 || answer.status > 299) throw client.failure('POST', path, answer);
  const started = client.parsed('POST', path, startedSchema, answer.json);
  io.out(`plan ${id} applied: ${client.server}${started.resourceUri}`);
  if (!wait) return EXIT.ok;
  if (started.resourceUri.startsWith('/task/')) return followTask(started.id, client, io, POLL_MS);
  // Loaded when used, as `deploy` loads it: the deployment file's modules are not for every command.
  if (started.resourceUri.startsWith('/deployments/'))
    return (await import('../deploy-command.ts')).followDeployment(started.id, client, io, POLL_MS);
  return EXIT.ok;
}

export const applyPlanCommand: CommandSpec = {
  name: 'apply-plan',
  synopsis: 'ID [--no-wait] [options]',
  summary: 'Apply exactly a plan, refused if a planned object changed since; follow what it starts.',
  details: [
    'POST /plans/{ID}/apply (WRITE on the accounts) writes the planned manifests only while each',
    "object's resourceVersion (or absence) is what the plan saw; otherwise nothing is written and the",
    'objects that moved are printed (409). A plan applies once (a second apply names the first task,',
    '409) and expires (410: plan again). A plan of operations runs as a task, followed through',
    "GET /task/{id}; a deployment file's plan starts the deployment, followed as deploy -f follows it.",
    'Exit 0 only when what it started succeeds (with --no-wait: when it started). Ctrl-C stops following.',
    CONNECTION_HELP,
  ].join('\n'),
  options: [
    { name: 'no-wait', description: 'apply, print where to follow it, do not follow' },
    ...CONNECTION_OPTIONS,
  ],
  positionals: { min: 1, max: 1 },
  run: (args, io) =>
    withClient(args, io, (client) => applyPlan(args.positionals[0] ?? '', !args.flag('no-wait'), client, io)),
};

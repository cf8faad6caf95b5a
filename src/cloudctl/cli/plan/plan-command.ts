// `cloudctl plan -f FILE`: the operations of FILE (the body of POST /ops) planned by POST /plans, which
// changes nothing in any cluster, and the plan printed as a diff with its id and the command that
// applies it. Planning needs READ on the accounts the operations name; applying needs WRITE.
import { EXIT, UsageError } from '../../../lib/command-line.ts';
import { CONNECTION_HELP, CONNECTION_OPTIONS, withClient } from '../client/index.ts';
import type { CommandSpec } from '../command-line/index.ts';
import { readOperationsFile } from './operations-file.ts';
import { showPlan } from './show-plan.ts';

export const PLAN_OUTPUT_HELP = [
  'Prints, per object, the action, kind, namespace/name and account, then each changed field as a',
  "'-' line (before) and a '+' line (after), red and green on a terminal unless NO_COLOR is set;",
  "Secret values show as (hidden). '!' lines say what stops the apply: the API server's dry run",
  "refused the object (its message as given) or the agent's identity lacks a permission; '?' lines",
  'what is not known until it runs. Then a summary, the plan id, its expiry and the apply command.',
].join('\n');

export const planCommand: CommandSpec = {
  name: 'plan',
  synopsis: '-f FILE [options]',
  summary: 'Plan operations (the body of POST /ops) without changing anything; print the diff and plan id.',
  details: [
    'FILE holds a list of {operationName: payload} in JSON or YAML (one operation alone is taken as a',
    "list of one); '-' reads standard input. POST /plans dry-runs them on the accounts' clusters.",
    PLAN_OUTPUT_HELP,
    'Exit 0 when planned (refusals included: they are in the plan); 1 when cloudctl refused the request',
    'or the file cannot be read. Apply the plan with cloudctl apply-plan ID.',
    CONNECTION_HELP,
  ].join('\n'),
  options: [
    {
      name: 'file',
      short: 'f',
      value: 'FILE',
      description: "the operations, JSON or YAML; '-' for stdin (required)",
    },
    ...CONNECTION_OPTIONS,
  ],
  positionals: { min: 0, max: 0 },
  run: async (args, io) => {
    const file = args.string('file');
    if (file === undefined) throw new UsageError("'plan' needs -f FILE");
    const read = await readOperationsFile(file, io);
    if (!read.ok) {
      io.err(`cloudctl: ${read.problem}`);
      return EXIT.invalidConfig;
    }
    return withClient(args, io, async (client) => {
      // Loaded when used: the plan record's module comes with the plans feature, not for every command.
      const { requestPlan } = await import('./plan-request.ts');
      showPlan(await requestPlan(client, '/plans', read.operations), args, io);
      return EXIT.ok;
    });
  },
};

// `cloudctl logs POD --account A --namespace N [--container C]`: a container's log, read through the
// account's agent by GET /instances/{account}/{namespace}/{pod}/console (the end of each container's
// log, at most 1 MiB). Without --container, the pod's first container, saying so on stderr as kubectl
// does.
import { z } from 'zod';
import { EXIT, UsageError } from '../../../lib/command-line.ts';
import { CliError, CONNECTION_HELP, CONNECTION_OPTIONS, withClient } from '../client/index.ts';
import type { CommandSpec } from '../command-line/index.ts';

const consoleSchema = z.looseObject({
  output: z.array(z.looseObject({ name: z.string(), output: z.string() })),
});

export const logsCommand: CommandSpec = {
  name: 'logs',
  synopsis: 'POD --account ACCOUNT --namespace NAMESPACE [--container NAME] [options]',
  summary: "Print a pod's container log (its last 1 MiB), read through the account's agent.",
  details: [
    "Without --container: the pod's first container (the others are named on stderr).",
    'A container whose log cannot be read prints the reason the agent gave instead.',
    CONNECTION_HELP,
  ].join('\n'),
  options: [
    { name: 'account', value: 'ACCOUNT', description: 'the account whose cluster runs the pod (required)' },
    { name: 'namespace', short: 'n', value: 'NAMESPACE', description: "the pod's namespace (required)" },
    { name: 'container', short: 'c', value: 'NAME', description: 'the container' },
    ...CONNECTION_OPTIONS,
  ],
  positionals: { min: 1, max: 1 },
  run: (args, io) => {
    const pod = args.positionals[0] ?? '';
    const account = args.string('account');
    const namespace = args.string('namespace');
    if (account === undefined || namespace === undefined)
      throw new UsageError("'logs' needs --account ACCOUNT and --namespace NAMESPACE");
    const wanted = args.string('container');
    return withClient(args, io, async (client) => {
      const { output } = await client.get(
        `/instances/${encodeURIComponent(account)}/${encodeURIComponent(namespace)}/${encodeURIComponent(pod)}/console`,
        consoleSchema,
      );
      const names = output.map((c) => c.name);
      const container = wanted === undefined ? output[0] : output.find((c) => c.name === wanted);
      if (container === undefined)
        throw new CliError(
          'NOT_FOUND',
          wanted === undefined
            ? `pod ${pod} has no containers`
            : `not found: pod ${pod} has no container '${wanted}' (it has ${names.join(', ')})`,
        );
      if (wanted === undefined && names.length > 1)
        io.err(`Defaulted container "${container.name}" out of: ${names.join(', ')}`);
      const text = container.output.endsWith('\n') ? container.output.slice(0, -1) : container.output;
      if (text !== '') io.out(text);
      return EXIT.ok;
    });
  },
};

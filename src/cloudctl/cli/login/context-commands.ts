// `cloudctl config get-contexts`, `config use-context NAME` and `config current-context`, as
// kubectl config has them, over the file `cloudctl login` writes. Tokens are never printed.
import { EXIT } from '../../../lib/command-line.ts';
import { CliError, contextsPath, readContexts, reported, writeContexts } from '../client/index.ts';
import type { CommandSpec } from '../command-line/index.ts';
import { TablePrinter } from '../get/index.ts';

interface Row {
  current: boolean;
  name: string;
  server: string;
  via: string;
}

export const getContextsCommand: CommandSpec = {
  name: 'config get-contexts',
  synopsis: '',
  summary: 'List the contexts `cloudctl login` stored; * marks the current one.',
  options: [],
  positionals: { min: 0, max: 0 },
  run: (_args, io) =>
    reported(io, async () => {
      const contexts = await readContexts(contextsPath(io.env));
      const printer = new TablePrinter<Row>(
        [
          { header: 'CURRENT', value: (r) => (r.current ? '*' : ' ') },
          { header: 'NAME', value: (r) => r.name },
          { header: 'SERVER', value: (r) => r.server },
          { header: 'LOGIN', value: (r) => r.via },
        ],
        false,
      );
      const rows = contexts.contexts.map((c) => ({
        current: c.name === contexts['current-context'],
        name: c.name,
        server: c.server,
        via: c.via,
      }));
      for (const line of printer.table(rows, Date.now())) io.out(line);
      return EXIT.ok;
    }),
};

export const useContextCommand: CommandSpec = {
  name: 'config use-context',
  synopsis: 'NAME',
  summary: 'Make a stored context the current one.',
  options: [],
  positionals: { min: 1, max: 1 },
  run: (args, io) =>
    reported(io, async () => {
      const name = args.positionals[0] ?? '';
      const path = contextsPath(io.env);
      const contexts = await readContexts(path);
      if (!contexts.contexts.some((c) => c.name === name))
        throw new CliError(
          'CONTEXT',
          `no context '${name}' in ${path}; 'cloudctl config get-contexts' lists them`,
        );
      await writeContexts(path, { ...contexts, 'current-context': name });
      io.out(`Switched to context '${name}'.`);
      return EXIT.ok;
    }),
};

export const currentContextCommand: CommandSpec = {
  name: 'config current-context',
  synopsis: '',
  summary: 'Print the current context.',
  options: [],
  positionals: { min: 0, max: 0 },
  run: (_args, io) =>
    reported(io, async () => {
      const path = contextsPath(io.env);
      const current = (await readContexts(path))['current-context'];
      if (current === undefined)
        throw new CliError('CONTEXT', `no current context in ${path}: run 'cloudctl login SERVER'`);
      io.out(current);
      return EXIT.ok;
    }),
};

// Printing a plan a command received: coloured only on a terminal without NO_COLOR, and ending with the
// apply command spelled with the same --server/--context the reader used, so it reaches the cloudctl
// that holds the plan.
import type { CliIo } from '../../../lib/cli-io.ts';
import type { PlanRecord } from '../../plans/index.ts';
import type { ParsedArgs } from '../command-line/index.ts';
import { planLines } from './plan-printer.ts';
import { wantsColour } from './terminal-colour.ts';

export function applyCommandFor(id: string, args: ParsedArgs): string {
  const server = args.string('server');
  const context = args.string('context');
  return [
    'cloudctl apply-plan',
    id,
    ...(server === undefined ? [] : ['--server', server]),
    ...(context === undefined ? [] : ['--context', context]),
  ].join(' ');
}

export function showPlan(plan: PlanRecord, args: ParsedArgs, io: CliIo): void {
  const colour = wantsColour(io.env, io.stdoutIsTerminal === true);
  io.out(planLines(plan, { colour, applyCommand: applyCommandFor(plan.id, args) }).join('\n'));
}

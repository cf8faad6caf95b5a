// Plans on the command line: `cloudctl plan -f FILE`, `cloudctl apply-plan ID` and what
// `deploy -f FILE --plan` runs, with the printer that shows a plan as a diff.
export { applyPlan, applyPlanCommand } from './apply-plan-command.ts';
export { planDeployment } from './deploy-plan.ts';
export { PLAN_OUTPUT_HELP, planCommand } from './plan-command.ts';
export { type PlanPrintOptions, planLines, summaryLine, valueText } from './plan-printer.ts';
export { wantsColour } from './terminal-colour.ts';

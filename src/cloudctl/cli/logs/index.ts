// `cloudctl logs`.
export { logsCommand } from './logs-command.ts';

// `cloudctl describe`.
export { describeCommand } from './describe-command.ts';

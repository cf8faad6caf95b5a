// `cloudctl clients ...`: client credentials from the command line.
export {
  CLIENTS_COMMANDS,
  clientsCreateCommand,
  clientsListCommand,
  clientsRevokeCommand,
  clientsRotateCommand,
} from './clients-commands.ts';

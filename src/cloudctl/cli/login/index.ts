// `cloudctl login` and the `config` commands over the contexts it stores.
export { currentContextCommand, getContextsCommand, useContextCommand } from './context-commands.ts';
export { loginCommand } from './login-command.ts';

// What client-node's KubeConfig (dist/config.js) takes from its generated API package, and nothing
// else: the generated package's index also loads every model and API class (~45 MiB and ~0.5 s at
// start) that the agent never uses. slim-client-node.ts points config.js's import here. If a
// client-node upgrade makes config.js import another name, linking fails at start naming it.
export { createConfiguration } from '@kubernetes/client-node/dist/gen/configuration.js';
export { ServerConfiguration } from '@kubernetes/client-node/dist/gen/servers.js';

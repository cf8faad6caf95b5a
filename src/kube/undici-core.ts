// undici as the agent uses it: its dispatchers (Agent, ProxyAgent) with their `request` method, the
// global dispatcher and the error classes, without what undici's index also loads at start and the
// agent does not use at all or only on demand: fetch and the web APIs (WebSocket, EventSource, the
// caches, cookies), the mock agents, the interceptors. That is ~12 MiB of resident memory and ~50 ms of
// start-up (docs/benchmarks.md, "Agent footprint"). `fetch` (Google tokens, the httpRequest
// operation) loads on its first call. slim-undici.ts points the agent's `undici` imports here; a name
// this module does not export fails linking at start, naming it.
import { createRequire } from 'node:module';
import type * as Undici from 'undici';

const require = createRequire(import.meta.url);
/** undici's own folder: its modules are loaded by path, as its index loads them. */
const root = require.resolve('undici').replace(/index\.js$/, '');
const load = (path: string): unknown => require(`${root}${path}`);

const DispatcherClass = load('lib/dispatcher/dispatcher.js') as typeof Undici.Dispatcher;
// What undici's index does first: every dispatcher gets request, stream, pipeline, connect, upgrade.
Object.assign(DispatcherClass.prototype, load('lib/api/index.js') as object);

export const Dispatcher = DispatcherClass;
export const Agent = load('lib/dispatcher/agent.js') as typeof Undici.Agent;
export const ProxyAgent = load('lib/dispatcher/proxy-agent.js') as typeof Undici.ProxyAgent;
export const errors = load('lib/core/errors.js') as typeof Undici.errors;
const global = load('lib/global.js') as Pick<typeof Undici, 'getGlobalDispatcher' | 'setGlobalDispatcher'>;
export const getGlobalDispatcher = global.getGlobalDispatcher;
export const setGlobalDispatcher = global.setGlobalDispatcher;

/** undici's fetch, loaded on first use (compile-cache-warmup.ts loads it ahead, for the image's cache). */
export const loadFetch = () => (load('lib/web/fetch/index.js') as Pick<typeof Undici, 'fetch'>).fetch;
export const fetch: typeof Undici.fetch = (input, init) => loadFetch()(input, init);

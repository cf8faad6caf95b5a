// Stands in for the SOCKS proxy packages inside client-node's KubeConfig (socks-proxy-agent, socks:
// ~30 ms and ~0.8 MiB at start): loaded, synchronously as client-node uses them, when a cluster's
// `proxy-url` is a socks4/socks5 URL. slim-client-node.ts points config.js's imports here.
import { createRequire } from 'node:module';

type SocksProxyAgentModule = typeof import('socks-proxy-agent');
type SocksModule = typeof import('socks');

const require = createRequire(import.meta.url);

/** Constructs the real agent: `new SocksProxyAgent(...)` returns it. */
export class SocksProxyAgent {
  constructor(...args: ConstructorParameters<SocksProxyAgentModule['SocksProxyAgent']>) {
    const socks: SocksProxyAgentModule = require('socks-proxy-agent');
    // biome-ignore lint/correctness/noConstructorReturn: the stand-in hands out the real agent.
    return new socks.SocksProxyAgent(...args);
  }
}

export const SocksClient = {
  createConnection(...args: Parameters<SocksModule['SocksClient']['createConnection']>) {
    const socks: SocksModule = require('socks');
    return socks.SocksClient.createConnection(...args);
  },
};

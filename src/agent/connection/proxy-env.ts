// Which HTTP CONNECT proxy (if any) the control-plane channel goes through, from the environment:
// `HTTPS_PROXY`, then `HTTP_PROXY` (either case; grpc-js's own `grpc_proxy` first), minus hosts that
// `NO_PROXY` lists. grpc-js reads only the lower-case names and only from process.env, so the agent
// resolves the proxy itself and turns grpc-js's lookup off (see channel-options.ts).
import { isIPv4 } from 'node:net';
import { ConnectionError } from './connection-error.ts';

export interface ProxyTarget {
  /** host:port of the proxy. */
  address: string;
  /** `user:password` for Proxy-Authorization: Basic, when the URL carries them. */
  credentials?: string;
  /** The variable the proxy came from, for logs. */
  variable: string;
}

export type Environment = Readonly<Record<string, string | undefined>>;

function first(env: Environment, names: string[]): { name: string; value: string } | undefined {
  for (const name of names) {
    const value = env[name];
    if (value !== undefined && value !== '') return { name, value };
  }
  return undefined;
}

function ipv4ToInt(ip: string): number {
  return ip.split('.').reduce((acc, octet) => ((acc << 8) | Number(octet)) >>> 0, 0);
}

/** NO_PROXY matching as curl and Go do: `*`, exact hosts, domain suffixes (`.example.com` or `example.com`), IPv4 CIDRs, optional `:port`. */
export function bypassesProxy(host: string, port: string, noProxy: string): boolean {
  const bareHost = host.replace(/^\[|\]$/g, '').toLowerCase();
  for (const raw of noProxy.split(',')) {
    let entry = raw.trim().toLowerCase();
    if (entry === '') continue;
    if (entry === '*') return true;
    const cidr = /^(\d+\.\d+\.\d+\.\d+)\/(\d+)$/.exec(entry);
    if (cidr !== null) {
      const bits = Number(cidr[2]);
      if (isIPv4(bareHost) && bits >= 0 && bits <= 32) {
        const mask = bits === 0 ? 0 : (~0 << (32 - bits)) >>> 0;
        if ((ipv4ToInt(bareHost) & mask) >>> 0 === (ipv4ToInt(cidr[1] ?? '') & mask) >>> 0) return true;
      }
      continue;
    }
    // host:port (an IPv6 address without brackets has more than one colon and no port).
    const withPort = /^([^:]+):(\d+)$/.exec(entry);
    if (withPort !== null) {
      if (withPort[2] !== port) continue;
      entry = withPort[1] ?? '';
    }
    entry = entry.replace(/^\[|\]$/g, '');
    if (bareHost === entry) return true;
    const suffix = entry.startsWith('.') ? entry : `.${entry}`;
    if (bareHost.endsWith(suffix)) return true;
  }
  return false;
}

/** The proxy for `target` (host:port), or undefined for a direct connection. */
export function proxyFor(target: string, env: Environment): ProxyTarget | undefined {
  const found = first(env, ['grpc_proxy', 'HTTPS_PROXY', 'https_proxy', 'HTTP_PROXY', 'http_proxy']);
  if (found === undefined) return undefined;
  const split = /^(\[[^\]]+\]|[^:]+)(?::(\d+))?$/.exec(target);
  const host = split?.[1] ?? target;
  const port = split?.[2] ?? '443';
  const noProxy = first(env, ['no_grpc_proxy', 'NO_PROXY', 'no_proxy']);
  if (noProxy !== undefined && bypassesProxy(host, port, noProxy.value)) return undefined;
  let url: URL;
  try {
    url = new URL(found.value.includes('://') ? found.value : `http://${found.value}`);
  } catch {
    // The value is not repeated: a proxy URL may carry a password.
    throw new ConnectionError(
      'CLOUDCTL_PROXY',
      `${found.name} is not a URL: expected http://[user:password@]host:port`,
    );
  }
  if (url.protocol !== 'http:') {
    throw new ConnectionError(
      'CLOUDCTL_PROXY',
      `${found.name}: only http:// proxies (HTTP CONNECT) are supported, not ${url.protocol}`,
    );
  }
  const proxy: ProxyTarget = {
    address: `${url.hostname}:${url.port === '' ? '80' : url.port}`,
    variable: found.name,
  };
  if (url.username !== '') {
    proxy.credentials = decodeURIComponent(
      url.password === '' ? url.username : `${url.username}:${url.password}`,
    );
  }
  return proxy;
}

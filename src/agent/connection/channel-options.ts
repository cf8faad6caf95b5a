// The one record of grpc-js channel options for the control-plane channel: where to dial (the
// control plane, or an HTTP CONNECT proxy in front of it), the certificate name override, and
// HTTP/2 keep-alive pings.
import type { ChannelOptions } from '@grpc/grpc-js';
import type { CloudctlSettings } from './credentials.ts';
import { type Environment, type ProxyTarget, proxyFor } from './proxy-env.ts';

export interface ChannelPlan {
  /** What grpc-js dials: the control plane, or the proxy. */
  target: string;
  options: ChannelOptions;
  proxy: ProxyTarget | undefined;
}

export function channelPlan(settings: CloudctlSettings, env: Environment): ChannelPlan {
  const options: ChannelOptions = {
    // grpc-js would otherwise read the lower-case proxy variables from process.env on its own,
    // ignoring `cloudctl.noProxy` and the upper-case names; proxyFor() decides instead.
    'grpc.enable_http_proxy': 0,
  };
  if (!settings.insecure && settings.tls.serverName !== undefined) {
    options['grpc.ssl_target_name_override'] = settings.tls.serverName;
  }
  if (settings.keepAliveHeartbeatSeconds > 0) {
    // Transport liveness beside the application heartbeat: a dead TCP path is noticed even when the
    // stream is idle. cloudctl permits pings without calls.
    options['grpc.keepalive_time_ms'] = settings.keepAliveHeartbeatSeconds * 1000;
    options['grpc.keepalive_permit_without_calls'] = 1;
  }
  if (settings.keepAliveTimeOutSeconds !== undefined) {
    options['grpc.keepalive_timeout_ms'] = settings.keepAliveTimeOutSeconds * 1000;
  }
  const proxy = settings.noProxy ? undefined : proxyFor(settings.grpc, env);
  if (proxy === undefined) return { target: settings.grpc, options, proxy };
  // The proxy mapper's own hand-off: grpc-js dials the proxy, sends CONNECT for the real target,
  // and takes the TLS name and :authority from the real target.
  options['grpc.http_connect_target'] = `dns:${settings.grpc}`;
  options['grpc.default_authority'] = settings.grpc;
  if (proxy.credentials !== undefined) options['grpc.http_connect_creds'] = proxy.credentials;
  return { target: proxy.address, options, proxy };
}

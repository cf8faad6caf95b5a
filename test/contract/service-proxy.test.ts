// The serviceProxy operation's guards, which both programs apply: the headers that may go on to a
// Service (never the caller's credentials for cloudctl, never hop-by-hop ones, nor those a
// `connection` header names), the paths that stay below a Service's proxy root (no `.` or `..`
// segment, plain or percent-encoded, which URL parsers would resolve into other API paths), the
// root itself, and the payload schema refusing a climbing path before it reaches the agent.
import { describe, expect, it } from 'vitest';
import {
  checkPayload,
  forwardableRequestHeaders,
  isContainedPath,
  serviceProxyRoot,
} from '../../src/contract/index.ts';

describe('the serviceProxy guards', () => {
  it("forwards a request's own headers, never credentials, hop-by-hop headers or those connection names", () => {
    expect(
      forwardableRequestHeaders({
        Authorization: 'Bearer cloudctl-token',
        cookie: 'cloudctl_session=abc',
        'Proxy-Authorization': 'Basic x',
        host: 'cloudctl.example',
        connection: 'keep-alive, X-Hop',
        'x-hop': 'dropped',
        'transfer-encoding': 'chunked',
        'accept-encoding': 'gzip',
        'content-length': '12',
        Accept: 'text/html',
        'X-Request-Id': ['a', 'b'],
        'content-type': 'application/json',
      }),
    ).toEqual({ accept: 'text/html', 'x-request-id': 'a, b', 'content-type': 'application/json' });
  });

  it('keeps paths below the proxy root and refuses dot segments however they are written', () => {
    for (const path of ['/', '/a/b', '/a/b/', '/file.txt', '/.well-known/x', '/a%20b', '/..a'])
      expect(isContainedPath(path), path).toBe(true);
    for (const path of [
      '/..',
      '/a/../b',
      '/a/./b',
      '/%2e%2e/x',
      '/%2E./x',
      '/.%2e',
      '/a%2fb',
      '/a%5cb',
      '/%zz',
    ])
      expect(isContainedPath(path), path).toBe(false);
    const refused = checkPayload('serviceProxy', {
      namespace: 'ns',
      service: 'web',
      method: 'GET',
      path: '/%2e%2e/%2e%2e/secrets',
    });
    expect(refused).toMatchObject({ ok: false, path: 'path' });
  });

  it("names the Service's proxy root by port and scheme", () => {
    expect(serviceProxyRoot({ namespace: 'shop', service: 'web', port: '8080', scheme: 'http' })).toBe(
      '/api/v1/namespaces/shop/services/web:8080/proxy',
    );
    expect(serviceProxyRoot({ namespace: 'shop', service: 'web', port: '', scheme: 'https' })).toBe(
      '/api/v1/namespaces/shop/services/https:web/proxy',
    );
  });
});

// A small client for cloudctl's HTTP API in tests: real requests over a real socket, answers with
// status, parsed body and headers.
export interface ApiAnswer {
  status: number;
  // biome-ignore lint/suspicious/noExplicitAny: tests read arbitrary JSON answers field by field.
  body: any;
  headers: Headers;
}

export interface ApiClient {
  get(path: string): Promise<ApiAnswer>;
  post(path: string, body?: unknown): Promise<ApiAnswer>;
  put(path: string, body?: unknown): Promise<ApiAnswer>;
  patch(path: string, body?: unknown): Promise<ApiAnswer>;
  delete(path: string): Promise<ApiAnswer>;
}

export function apiClient(baseUrl: string, token?: string): ApiClient {
  const call = async (method: string, path: string, body?: unknown): Promise<ApiAnswer> => {
    const headers: Record<string, string> = {};
    if (token !== undefined) headers.authorization = `Bearer ${token}`;
    if (body !== undefined) headers['content-type'] = 'application/json';
    const response = await fetch(`${baseUrl}${path}`, {
      method,
      headers,
      ...(body === undefined ? {} : { body: JSON.stringify(body) }),
    });
    const text = await response.text();
    let parsed: unknown = text;
    if ((response.headers.get('content-type') ?? '').includes('json') && text !== '')
      parsed = JSON.parse(text);
    return { status: response.status, body: parsed, headers: response.headers };
  };
  return {
    get: (path) => call('GET', path),
    post: (path, body) => call('POST', path, body),
    put: (path, body) => call('PUT', path, body),
    patch: (path, body) => call('PATCH', path, body),
    delete: (path) => call('DELETE', path),
  };
}

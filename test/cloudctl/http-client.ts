// A small client for cloudctl's HTTP API in tests: real requests over a real socket, answers with
// status, parsed body and headers. Every 2xx JSON answer is held to the schema cloudctl's own API
// document gives for its operation (api-document-check.ts): a field the document does not declare, or
// of another type, throws, so the test that saw it fails however loosely it reads the body. Every
// other answer's status must be one the document lists for the operation: a route that answers a 409
// or a 503 it does not declare fails the test that saw it, whatever the test expected.
import { ApiDocumentCheck } from './api-document-check.ts';

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

export class UndocumentedAnswerError extends Error {
  constructor(problems: string[]) {
    super(`the answer does not match cloudctl's API document:\n  ${problems.join('\n  ')}`);
    this.name = 'UndocumentedAnswerError';
  }
}

/** One document per server, read at the first answer that needs it. */
const documents = new Map<string, Promise<ApiDocumentCheck>>();

function documentOf(baseUrl: string): Promise<ApiDocumentCheck> {
  let document = documents.get(baseUrl);
  if (document === undefined) {
    document = ApiDocumentCheck.load(baseUrl);
    // A server that restarts on the same port serves the same document; a failed read is retried.
    document.catch(() => documents.delete(baseUrl));
    documents.set(baseUrl, document);
  }
  return document;
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
    const json = (response.headers.get('content-type') ?? '').includes('json') && text !== '';
    if (json) parsed = JSON.parse(text);
    if (json && response.status >= 200 && response.status < 300 && path !== '/v2/api-docs') {
      const problems = (await documentOf(baseUrl)).problems(method, path, response.status, parsed);
      if (problems.length > 0) throw new UndocumentedAnswerError(problems);
    } else if (response.status >= 300) {
      // A server shutting down (503) may no longer serve its document: its refusal is then not checked.
      const document = await documentOf(baseUrl).catch(() => undefined);
      const problems = document?.statusProblems(method, path, response.status) ?? [];
      if (problems.length > 0) throw new UndocumentedAnswerError(problems);
    }
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

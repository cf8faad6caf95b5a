// The HTTP transport of cloudctl: the server, the route definition features use, and the errors.
export { AGENT_ANSWERS, errorAnswers } from './error-answers.ts';
export { errorBody, HTTP_ERRORS, HttpError, type HttpErrorCode } from './http-error.ts';
export type { HttpMetrics } from './http-metrics.ts';
export { type HttpEndpoint, type HttpServerDeps, startHttpEndpoint } from './http-server.ts';
export { queryBoolean, queryInteger } from './query-params.ts';
export {
  defineRoute,
  type HttpMethod,
  Reply,
  type Route,
  type RouteRequest,
  type RouteSchema,
} from './route.ts';
export { API_DOCS_PATH, errorBodySchema } from './swagger-document.ts';
export { SWAGGER_TYPE } from './swagger-schema.ts';

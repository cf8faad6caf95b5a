// The error answers a route declares beyond those every route documents (400 and 404; 401 and 403
// for a user's route; 413 and 415 for one with a body), named by their codes: a route says what can
// go wrong (`response: { 200: …, ...errorAnswers('AGENT_FAILED', 'AGENT_UNAVAILABLE') }`), and the
// document describes each status with its code's meaning, written once in HTTP_ERRORS.
import type { z } from 'zod';
import { HTTP_ERRORS, type HttpErrorCode } from './http-error.ts';
import { errorBodySchema } from './swagger-document.ts';

/** The error body under each code's status, described by the code and what it means. */
export function errorAnswers(...codes: HttpErrorCode[]): Record<number, z.ZodType> {
  const answers: Record<number, z.ZodType> = {};
  for (const code of codes) {
    const { status, meaning } = HTTP_ERRORS[code];
    const described = answers[status]?.description;
    const line = `${code}: ${meaning}`;
    answers[status] = errorBodySchema.describe(described === undefined ? line : `${described}; ${line}`);
  }
  return answers;
}

/**
 * What a route that asks an agent can answer besides its own (operations/agent-answer.ts): 502 when
 * the agent or its cluster failed, 503 when no connected agent serves the account.
 */
export const AGENT_ANSWERS = errorAnswers('AGENT_FAILED', 'AGENT_UNAVAILABLE');

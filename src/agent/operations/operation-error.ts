// Operation failures with the contract's codes (src/contract/operation-errors.ts), so the control
// plane and users can act on them, and the mapping from what went wrong (a Kubernetes answer, a bad
// payload, a deadline) to a code.
import type { OperationErrorCode, OperationFailure } from '../../contract/index.ts';
import { KubeApiError, KubeConfigError, KubeTransportError, UnknownKindError } from '../../kube/index.ts';
import { CodedError } from '../../lib/coded-error.ts';
import { InvalidManifestError } from './apply/manifest.ts';
import { ApplyConflictError, ObjectMovedError } from './apply/server-side-apply.ts';

export class OperationError extends CodedError<OperationErrorCode> {
  readonly path: string | undefined;
  constructor(code: OperationErrorCode, message: string, path?: string) {
    super(code, message);
    this.path = path;
  }
}

const BY_STATUS: Record<number, OperationErrorCode> = {
  403: 'FORBIDDEN',
  404: 'NOT_FOUND',
  409: 'CONFLICT',
  422: 'INVALID',
};

export function toOperationError(error: unknown, signal?: AbortSignal): OperationFailure {
  if (signal?.aborted) {
    const reason = signal.reason instanceof Error ? signal.reason : undefined;
    // The journal aborts with a coded error at shutdown; anything else that aborts is the deadline.
    const shutdown = reason instanceof OperationError && reason.code === 'SHUTTING_DOWN';
    return {
      code: shutdown ? 'SHUTTING_DOWN' : 'DEADLINE_EXCEEDED',
      message: reason?.message ?? 'operation aborted',
    };
  }
  if (error instanceof OperationError)
    return { code: error.code, message: error.message, ...(error.path ? { path: error.path } : {}) };
  if (error instanceof InvalidManifestError)
    return { code: 'INVALID_MANIFEST', message: error.message, path: error.path };
  if (error instanceof UnknownKindError) return { code: 'UNKNOWN_KIND', message: error.message };
  if (error instanceof ApplyConflictError) return { code: 'CONFLICT', message: error.message };
  if (error instanceof ObjectMovedError) return { code: 'PRECONDITION_FAILED', message: error.message };
  if (error instanceof KubeApiError) {
    const path = error.causes.find((c) => c.field)?.field;
    return { code: BY_STATUS[error.status] ?? 'FAILED', message: error.message, ...(path ? { path } : {}) };
  }
  if (error instanceof KubeTransportError || error instanceof KubeConfigError)
    return { code: 'UNREACHABLE', message: error.message };
  return { code: 'FAILED', message: error instanceof Error ? error.message : String(error) };
}

// An error answer from a Kubernetes API server, carrying its Status object's reason and message.

import { CodedError } from '../lib/coded-error.ts';
import { isRecord } from '../lib/is-record.ts';

export class KubeApiError extends CodedError<'KUBE_API_ERROR'> {
  readonly status: number;
  /** Status.reason, e.g. `NotFound`, `Conflict`, `Forbidden`, `Expired`, `Invalid`. */
  readonly reason: string;
  /** Status.details.causes: for Invalid, the bad field paths; for apply conflicts, the fields. */
  readonly causes: Array<{ field: string; message: string; reason: string }>;
  /** Status.message as the API server wrote it, without the request it answers (a plan shows it). */
  readonly serverMessage: string;

  constructor(status: number, method: string, path: string, body: unknown) {
    const statusObject = isRecord(body) && body.kind === 'Status' ? body : undefined;
    const message = typeof statusObject?.message === 'string' ? statusObject.message : `HTTP ${status}`;
    super('KUBE_API_ERROR', `${method} ${path}: ${message}`);
    this.status = status;
    this.serverMessage = message;
    this.reason = typeof statusObject?.reason === 'string' ? statusObject.reason : '';
    const details = isRecord(statusObject?.details) ? statusObject.details : {};
    const causes = Array.isArray(details.causes) ? details.causes : [];
    this.causes = causes.filter(isRecord).map((c) => ({
      field: typeof c.field === 'string' ? c.field : '',
      message: typeof c.message === 'string' ? c.message : '',
      reason: typeof c.reason === 'string' ? c.reason : '',
    }));
  }
}

// A watch stream that broke after the API server had answered it: the server died or the network
// cut the connection mid-stream. Named apart from KubeTransportError (no connection at all): the
// streaming list takes a cut stream as a reason to list by pages once, not as a server out of reach.
import { CodedError } from '../lib/coded-error.ts';
import { errorCode } from '../lib/is-record.ts';
import { transportCause } from './transport-cause.ts';

export class WatchCutError extends CodedError<'KUBE_WATCH_CUT'> {
  constructor(server: string, cause: unknown) {
    // The server, so that a log line of an agent watching several clusters says which one went away.
    const code = errorCode(transportCause(cause));
    super('KUBE_WATCH_CUT', `the watch stream from ${server} was cut: ${code}`, { cause });
  }
}

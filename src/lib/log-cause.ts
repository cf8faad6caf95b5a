// The cause of an error as one line for a log entry. Expected faults (the control plane gone, an API
// server restarting) are logged this way: the message says what failed and why, and a stack trace,
// many lines repeated on every retry, would only say where in our code the retry loop runs.

/**
 * The error's code (our coded errors, Node's system errors) and message, followed by the messages of
 * its causes that it does not already contain.
 */
export function causeOf(error: unknown): string {
  if (!(error instanceof Error)) return String(error);
  const code = 'code' in error && typeof error.code === 'string' ? error.code : '';
  const parts = [code === '' || error.message.includes(code) ? error.message : `${code}: ${error.message}`];
  let cause: unknown = error.cause;
  for (let depth = 0; depth < 4 && cause !== undefined; depth++) {
    const text = cause instanceof Error ? cause.message : String(cause);
    if (!parts.some((part) => part.includes(text))) parts.push(text);
    cause = cause instanceof Error ? cause.cause : undefined;
  }
  return parts.join(': ').replaceAll('\n', ' ');
}

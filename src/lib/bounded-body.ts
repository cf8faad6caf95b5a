// Reading an HTTP answer's body up to a bound: a peer that streams without end (a webhook job, a
// Service behind a preview, a metrics server) must not fill our memory. Leaving the loop cancels the
// stream, so the rest is never read. Callers choose what a cut body means: kept as truncated, or
// refused.

export interface BoundedBody {
  /** The first `maxBytes` bytes at most. */
  bytes: Buffer;
  /** More came than `maxBytes`. */
  truncated: boolean;
}

export async function readBounded(
  body: AsyncIterable<Uint8Array> | null,
  maxBytes: number,
): Promise<BoundedBody> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of body ?? []) {
    const buffer = Buffer.isBuffer(chunk) ? chunk : Buffer.from(chunk);
    if (size + buffer.length > maxBytes) {
      chunks.push(buffer.subarray(0, maxBytes - size));
      return { bytes: Buffer.concat(chunks), truncated: true };
    }
    chunks.push(buffer);
    size += buffer.length;
  }
  return { bytes: Buffer.concat(chunks), truncated: false };
}

// `Promise.all` over a list with at most `limit` calls in flight: a plan of a hundred objects asks
// the API server a few things at a time, not a hundred at once (its priority and fairness would
// queue them, and the agent's other work with them).
export async function boundedAll<T, R>(
  items: ReadonlyArray<T>,
  limit: number,
  run: (item: T, index: number) => Promise<R>,
): Promise<R[]> {
  const results = new Array<R>(items.length);
  let next = 0;
  const worker = async () => {
    while (next < items.length) {
      const index = next++;
      results[index] = await run(items[index] as T, index);
    }
  };
  await Promise.all(Array.from({ length: Math.min(limit, items.length) }, worker));
  return results;
}

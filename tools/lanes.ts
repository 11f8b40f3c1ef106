// Work queued in order and run a few items at a time, for the tools that run steps side by side.

/** Runs `each` on every item, in the order given, at most `lanes` at a time; rejects with the first failure. */
export async function inLanes<T>(items: readonly T[], lanes: number, each: (item: T) => Promise<void>): Promise<void> {
  const queue = [...items];
  const lane = async () => {
    for (let item = queue.shift(); item !== undefined; item = queue.shift()) await each(item);
  };
  await Promise.all(Array.from({ length: Math.min(lanes, queue.length) }, lane));
}

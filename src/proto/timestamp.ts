// google.protobuf.Timestamp <-> Date. Seconds travel as a decimal string (LOADER_OPTIONS.longs).
import type { Timestamp, Timestamp__Output } from './gen/google/protobuf/Timestamp.ts';

export function toTimestamp(date: Date): Timestamp {
  const ms = date.getTime();
  const seconds = Math.floor(ms / 1000);
  return { seconds: String(seconds), nanos: (ms - seconds * 1000) * 1_000_000 };
}

export function fromTimestamp(timestamp: Timestamp__Output): Date {
  return new Date(Number(timestamp.seconds) * 1000 + Math.floor(timestamp.nanos / 1_000_000));
}

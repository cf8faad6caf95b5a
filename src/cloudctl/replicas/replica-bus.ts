// How replicas tell each other that something is waiting in the database: a channel name and a short
// text. Delivery is best effort (a replica that was disconnected misses what was said meanwhile), so
// the database stays the truth and a listener re-reads it after `reconnected`.
export interface ReplicaBus {
  /** Opens what listening needs (a connection of its own): nothing is held open before. */
  open(): Promise<void>;
  notify(channel: string, payload: string): Promise<void>;
  listen(channel: string, handler: (payload: string) => void): Promise<void>;
  /** Called after the bus reconnected and listens again: whatever was said meanwhile is lost. */
  onReconnected(handler: () => void): void;
  close(): Promise<void>;
}

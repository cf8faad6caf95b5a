// What the HTTP server reports about itself: requests by route and status, and their durations.
export interface HttpMetrics {
  observe(method: string, route: string, status: number, seconds: number): void;
}

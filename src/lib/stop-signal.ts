// How a daemon waits to be stopped: the first SIGTERM or SIGINT resolves `stopSignal()`; a second
// gets Node's default action, a forced stop. Signal listeners do not keep the event loop alive, so a
// timer does while someone waits; `release()` ends it when the program returns without a signal.

export function processStopSignal(): { stopSignal: () => Promise<string>; release: () => void } {
  let stop: Promise<string> | undefined;
  let keepAlive: NodeJS.Timeout | undefined;
  return {
    stopSignal: () => {
      stop ??= new Promise((resolve) => {
        keepAlive = setInterval(() => undefined, 2 ** 30);
        const onSignal = (signal: NodeJS.Signals) => {
          clearInterval(keepAlive);
          resolve(signal);
        };
        process.once('SIGTERM', onSignal);
        process.once('SIGINT', onSignal);
      });
      return stop;
    },
    release: () => clearInterval(keepAlive),
  };
}

// Loads zod without its ~50 translations of error messages: zod's index re-exports them all
// (`z.locales`, `z.core.locales`: ~20 ms and ~0.8 MiB at start), while the agent reports in English,
// which zod loads on its own (classic/schemas.js registers `en` as the default). Registered by
// bin/orch-agent.js before anything imports zod; code that imports zod without it (tests, tools,
// cloudctl) gets the whole package and works the same.
import { registerHooks } from 'node:module';

/** The two modules that re-export the translations as a namespace. */
const REEXPORTERS = /\/zod\/v4\/(core\/index|classic\/external)\.js$/;
const NO_LOCALES = 'data:text/javascript,export {};';

registerHooks({
  resolve(specifier, context, nextResolve) {
    if (specifier === '../locales/index.js' && REEXPORTERS.test(context.parentURL ?? '')) {
      return { url: NO_LOCALES, shortCircuit: true };
    }
    return nextResolve(specifier, context);
  },
});

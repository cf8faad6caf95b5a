// Drift: objects cloudctl deployed that other field managers changed since. The agent summarises
// it from managedFields, caching stores it with each object, and this folder says it in words and
// (re-apply) plans the recorded manifest again.
export { driftSentence, driftSentences } from './drift-words.ts';

// `cloudctl completion bash|zsh`.
export { bashCompletion, completionCommand, zshCompletion } from './completion-script.ts';

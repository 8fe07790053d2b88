import type { ModelChoice } from '../types.js'

/**
 * The reasoning efforts the chat-completions `reasoning_effort` field takes, after `default`: send
 * no field and let the server decide (so a server without the field is never sent it unasked).
 */
export const REASONING_EFFORTS: readonly ModelChoice[] = [
  { id: 'default', name: 'Default', description: "The model server's own default" },
  { id: 'low', name: 'Low' },
  { id: 'medium', name: 'Medium' },
  { id: 'high', name: 'High' },
]

/** `a,b , c` -> `['a', 'b', 'c']` (the `--model-name` list); empty names are dropped. */
export function modelNameList(value: unknown): string[] {
  if (typeof value !== 'string') return []
  return value
    .split(',')
    .map((name) => name.trim())
    .filter((name) => name !== '')
}

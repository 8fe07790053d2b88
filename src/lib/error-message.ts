/** The text of a thrown value for a log line or a user-facing reason: an Error's message (its name when empty), else the value as a string. */
export function errorMessage(error: unknown): string {
  if (error instanceof Error) return error.message || error.name
  return String(error)
}

/** Replaces every occurrence of the secrets it was given with `[REDACTED]`. */
export type Redactor = (text: string) => string

/** A {@link Redactor} for `secrets` (empty strings are ignored). */
export function createRedactor(secrets: readonly (string | undefined)[]): Redactor {
  const present = secrets.filter((secret): secret is string => secret !== undefined && secret !== '')
  if (present.length === 0) return (text) => text
  return (text) => present.reduce((out, secret) => out.split(secret).join('[REDACTED]'), text)
}

import type { ErrorObject } from 'ajv'

/**
 * A validator ajv generated from a schema (standalone code, `*.gen.ts`): when it returns true it
 * has checked `data` against the schema whose type is `T`; otherwise `errors` says why.
 */
export interface SchemaValidator<T> {
  (data: unknown): data is T
  readonly errors?: readonly ErrorObject[] | null
}

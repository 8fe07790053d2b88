/**
 * A value already serialized as JSON text, for a response result that is sent many times over:
 * the writer splices `json` into the response line instead of serializing the value again. Any
 * other `JSON.stringify` of it (a log, a test) still gives the value, through `toJSON`.
 * `json` must be the `JSON.stringify` of a JSON value; make it with {@link serialized}.
 */
export class SerializedJson<T = unknown> {
  declare private readonly valueType: T

  private constructor(readonly json: string) {}

  toJSON(): T {
    return JSON.parse(this.json) as T
  }

  /** `value` serialized once, now; later changes to `value` do not show. */
  static of<T>(value: T): SerializedJson<T> {
    const json = JSON.stringify(value)
    if (typeof json !== 'string') throw new TypeError('the value is not JSON-serializable')
    return new SerializedJson<T>(json)
  }
}

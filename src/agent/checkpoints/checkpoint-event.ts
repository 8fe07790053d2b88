import { type ExtensionEventDataMap, extensionData, type SessionEvent } from '../../session/index.js'

export const CHECKPOINT_FILE_EVENT = 'checkpoint:file'

/** What a `checkpoint:file` event records (see its definition in event-definitions.ts). */
export type FileCheckpoint = ExtensionEventDataMap[typeof CHECKPOINT_FILE_EVENT]

/** `before` of a change that created the file. */
export const ABSENT = 'absent'

/**
 * Content up to this many bytes (valid UTF-8) is kept inline in the event's `beforeText`; larger
 * content goes to the blob directory. A blob costs a file, two fsyncs and a 4 KiB disk block; a
 * few KiB of JSON text in the log cost less than that and stay readable.
 */
export const INLINE_BEFORE_BYTES = 2048

/** The checkpoint an event records, with its seq; undefined for any other event. */
export function checkpointOf(event: SessionEvent): (FileCheckpoint & { readonly seq: number }) | undefined {
  const data = extensionData(event, CHECKPOINT_FILE_EVENT)
  return data && { ...data, seq: event.seq }
}

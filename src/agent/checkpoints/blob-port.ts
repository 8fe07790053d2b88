import { createHash } from 'node:crypto'

/** The name of some bytes: `sha256:` and the 64 hex digits of their SHA-256. */
export type BlobName = `sha256:${string}`

/** The {@link BlobName} of `bytes`. */
export function blobNameOf(bytes: Uint8Array): BlobName {
  return `sha256:${createHash('sha256').update(bytes).digest('hex')}`
}

const BLOB_NAME = /^sha256:[0-9a-f]{64}$/

export function isBlobName(value: string): value is BlobName {
  return BLOB_NAME.test(value)
}

/**
 * Where file checkpoints keep the content a file had before a tool changed it: content-addressed
 * (the same bytes are kept once) and shared by every session of the store (a fork or a rewind
 * branch copies the events that name a blob, not the blob). The persistence backend's blob
 * directory implements it (`src/persistence/blobs/`); {@link memoryBlobs} does without a store.
 */
export interface CheckpointBlobs {
  /** Keeps `bytes` and resolves their name once they are durable (at once if already kept). */
  put(bytes: Uint8Array): Promise<BlobName>
  /** The bytes named `name`, checked against it; undefined when they are not kept. */
  get(name: BlobName): Promise<Buffer | undefined>
}

/** Blobs in memory, for a store without persistence (sessions that live only in this process). */
export function memoryBlobs(): CheckpointBlobs {
  const kept = new Map<BlobName, Buffer>()
  return {
    async put(bytes) {
      const name = blobNameOf(bytes)
      if (!kept.has(name)) kept.set(name, Buffer.from(bytes))
      return name
    },
    async get(name) {
      const bytes = kept.get(name)
      return bytes && Buffer.from(bytes)
    },
  }
}

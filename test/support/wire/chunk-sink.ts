import { Writable } from 'node:stream'

/** A writable that accepts every write at once and keeps each chunk, as written, in `chunks`. */
export function chunkSink(): { readonly sink: Writable; readonly chunks: string[] } {
  const chunks: string[] = []
  const sink = new Writable({
    decodeStrings: false,
    write(chunk: string, _encoding, callback) {
      chunks.push(chunk)
      callback()
    },
  })
  return { sink, chunks }
}

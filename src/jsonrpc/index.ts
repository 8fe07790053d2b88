export {
  createNdjsonConnection,
  NdjsonConnection,
  type NdjsonConnectionOptions,
  type WireDirection,
  type WireTap,
} from './connection.js'
export { type InboundHandlers, isPromiseLike } from './dispatcher.js'
export { classify, type Envelope, isWireId, type WireId } from './envelope.js'
export { errorResponse, WireErrorCode } from './errors.js'
export { RequestLedger } from './ledger.js'
export type { OutboundCancel } from './outbound.js'
export { DEFAULT_MAX_LINE_BYTES, type LineSink, LineSplitter } from './read/line-splitter.js'
export { type CancelNotifications, NdjsonMessageReader, type NdjsonReaderOptions } from './read/reader.js'
export { NdjsonMessageWriter, type NdjsonWriterOptions } from './write/writer.js'

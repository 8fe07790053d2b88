export {
  formatTranscriptEntry,
  parseTranscript,
  parseTranscriptLine,
  type TranscriptEntry,
  TranscriptFormatError,
  TranscriptRecorder,
  type TranscriptRecorderOptions,
  transcriptEntry,
} from '../process/transcript.js'
export {
  createNdjsonConnection,
  type NdjsonConnection,
  type NdjsonConnectionOptions,
  type WireDirection,
  type WireTap,
} from './connection.js'
export { isPromiseLike } from './dispatcher.js'
export { classify, type Envelope, isWireId, type WireId } from './envelope.js'
export { errorResponse, WireErrorCode } from './errors.js'
export { RequestLedger } from './ledger.js'
export { DEFAULT_MAX_LINE_BYTES, type LineSink, LineSplitter } from './line-splitter.js'
export { ACP_CANCEL_METHOD, NdjsonMessageReader, type NdjsonReaderOptions } from './reader.js'
export { SerializedJson } from './serialized.js'
export { NdjsonMessageWriter, type NdjsonWriterOptions } from './writer.js'

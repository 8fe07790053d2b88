export { BLOB_GRACE_MS, BlobCollector } from './blobs/blob-collector.js'
export { type BlobCollection, BlobDirectory } from './blobs/blob-directory.js'
export { FILE_VERSION, headerLine, parseHeader } from './file-format.js'
export { type Fault, FaultyFileSystem, type FaultyOperation } from './fs/faulty-file-system.js'
export type { FileStat, FileSystem, OpenFile } from './fs/file-system.js'
export { nodeFileSystem } from './fs/file-system.js'
export {
  JsonlPersistence,
  type JsonlPersistenceConfig,
  jsonlPersistencePlugin,
  persistencePlugin,
} from './jsonl-persistence.js'
export { readSessionFile, type SessionFileContents } from './read/read-session-file.js'
export { isPostgresUrl, plugPersistence } from './store-location.js'
export { resolveStoreDir, StorePaths } from './store-paths.js'

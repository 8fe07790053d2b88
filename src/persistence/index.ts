export { type Fault, FaultyFileSystem, type FaultyOperation } from './faulty-file-system.js'
export { FILE_VERSION, headerLine, parseHeader } from './file-format.js'
export type { FileStat, FileSystem, OpenFile } from './file-system.js'
export { nodeFileSystem } from './file-system.js'
export {
  JsonlPersistence,
  type JsonlPersistenceConfig,
  jsonlPersistencePlugin,
  persistencePlugin,
} from './jsonl-persistence.js'
export { readSessionFile, type SessionFileContents } from './read-session-file.js'
export { resolveStoreDir, StorePaths } from './store-paths.js'

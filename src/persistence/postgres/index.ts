export {
  isPostgresUrl,
  PostgresPersistence,
  type PostgresPersistenceConfig,
  postgresPersistencePlugin,
} from './pg-persistence.js'
export { MIGRATIONS } from './schema.js'

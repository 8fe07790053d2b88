export { isPostgresUrl } from '../store-location.js'
export {
  PostgresPersistence,
  type PostgresPersistenceConfig,
  postgresPersistencePlugin,
} from './pg-persistence.js'
export { MIGRATIONS } from './schema/schema.js'

/** The official ACP schema validation lives with the replay tool (one implementation for both). */
export {
  acpMethod,
  validateAcpDefinition,
  validateAcpMessage,
} from '../../src/replay/compare/acp-schema.js'

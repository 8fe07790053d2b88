import { resolve } from 'node:path'
import type { FakeReply } from './fake-openai.js'

/**
 * How to run a snapshot scenario's server again: `test/snapshots/<name>/replay.json`, written by
 * `runScenario` from what the scenario did (so a new scenario gets one without extra work).
 * `<work>` in args and in the text of `files` stands for the scenario's work directory, {@link MODEL_SERVER} for the fake
 * chat-completions server that `modelServer` (its replies, in request order) describes.
 */
export interface ReplaySpec {
  /** One entry per server process, in order; each starts with the client's `initialize`. */
  readonly processes: readonly { readonly idPrefix: string; readonly args: readonly string[] }[]
  /** Files the scenario wrote into its work directory (model scripts, project files), by path. */
  readonly files: Readonly<Record<string, string>>
  /** Empty directories the scenario made in its work directory (besides `project`), by name. */
  readonly directories?: readonly string[]
  /**
   * The work directory links the project's `node_modules` (as `<work>/node_modules`), so a script
   * in `files` (a scenario's own MCP server) imports the packages the tests have.
   */
  readonly nodeModules?: boolean
  readonly modelServer?: readonly FakeReply[]
  /**
   * The processes ran with `XDG_CONFIG_HOME=<work>/config` (a user configuration file, written
   * among `files` as `config/dsh-acp/…`); otherwise with none.
   */
  readonly configHome?: boolean
}

/** Where a scenario's user configuration lives, under its work directory (see `configHome`). */
export const CONFIG_HOME = 'config'

/** Stands for the fake model server's URL in `replay.json`. */
export const MODEL_SERVER = '<model-server>'

/** The project's `node_modules`, which a scenario with `nodeModules` links into its work directory. */
export const PROJECT_NODE_MODULES = resolve(import.meta.dirname, '../../node_modules')

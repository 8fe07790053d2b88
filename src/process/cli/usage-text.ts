import { CLI_OPTIONS, type OptionRow } from '../cli-options.js'

/** How the usage text and `x-cli` write the option: `--store DIR`, `--memory`. */
export function optionForm(option: OptionRow): string {
  return option.value === undefined ? `--${option.name}` : `--${option.name} ${option.value}`
}

const USAGE_HEAD = `Usage: dsh-acp [serve] [options]      serve ACP on stdin/stdout (what an editor starts)
       dsh-acp sessions [options]     print the stored sessions as a lineage tree
       dsh-acp config [options]       print the effective configuration and where each value
                                      came from (keys masked)
       dsh-acp setup [setup options]  choose a model provider, store its key, write the
                                      configuration file (setup --help)
       dsh-acp trust [list | add PATH | decline PATH | remove PATH]
                                      list or edit which folders' project configuration
                                      is used (workspace trust; trust --help)
       dsh-acp store copy FROM TO     copy every session between a JSONL directory and a
                                      PostgreSQL database, either way (store --help)
       dsh-acp store gc STORE         remove the checkpoint blobs no session names
       dsh-acp record --out FILE [--] AGENT_COMMAND [ARGS...]
                                      run an agent, recording its traffic (record --help)
       dsh-acp replay FILE [options] [--] AGENT_COMMAND [ARGS...]
                                      replay a transcript against an agent (replay --help)

Options:
`
/** Where an option's description starts; a longer form puts it on the next line. */
const HELP_COLUMN = 23

/** The usage text's lines for `table`: each listed option's forms, then its description. */
export function optionLines(table: readonly OptionRow[]): string {
  const lines: string[] = []
  for (const option of table) {
    const form = `  ${option.short === undefined ? '' : `-${option.short}, `}${optionForm(option)}`
    if (option.help.length === 0) continue
    if (option.section !== undefined) lines.push('', option.section)
    const [first = '', ...rest] = option.help
    if (form.length < HELP_COLUMN - 1) lines.push(form.padEnd(HELP_COLUMN) + first)
    else lines.push(form, ' '.repeat(HELP_COLUMN) + first)
    for (const line of rest) lines.push(' '.repeat(HELP_COLUMN) + line)
  }
  return `${lines.join('\n')}\n`
}

/** The `--help` text: the commands, then every option with its description. */
export function usageText(): string {
  return `${USAGE_HEAD}${optionLines(CLI_OPTIONS)}`
}

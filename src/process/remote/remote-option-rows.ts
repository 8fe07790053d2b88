/** The heading `--help` prints above the remote options. */
export const REMOTE_SECTION = 'Serving on the network (dsh-acp serve --listen; docs/remote.md):'

/**
 * The options of `dsh-acp serve --listen`, rows of the one options table (cli-options.ts): each
 * sets the configuration's `remote` property (config-schema.ts), assembled by remote-options.ts.
 */
export const REMOTE_OPTION_ROWS = [
  {
    name: 'listen',
    type: 'string',
    value: '[HOST:]PORT',
    section: REMOTE_SECTION,
    help: [
      'serve ACP over HTTP (POST + SSE) and WebSocket on HOST',
      '(default 127.0.0.1); port 0: any free port',
    ],
    sets: 'remote',
  },
  {
    name: 'tls-cert',
    type: 'string',
    value: 'FILE',
    help: ['serve HTTPS/WSS with this PEM certificate (with --tls-key;', 'required off loopback...)'],
    sets: 'remote',
  },
  { name: 'tls-key', type: 'string', value: 'FILE', help: ['the PEM key of --tls-cert'], sets: 'remote' },
  {
    name: 'behind-tls-proxy',
    type: 'boolean',
    help: ['...unless a TLS proxy in front terminates it'],
    sets: 'remote',
  },
  {
    name: 'allow-origin',
    type: 'string',
    value: 'ORIGIN',
    multiple: true,
    help: ['a web page origin allowed to call (repeatable; default none)'],
    sets: 'remote',
  },
  {
    name: 'rotate-token',
    type: 'boolean',
    help: ['make a new bearer token (without --listen: write it and exit)'],
    sets: 'remote',
  },
  {
    name: 'token-file',
    type: 'string',
    value: 'FILE',
    help: ['where the token is kept (default', '$XDG_CONFIG_HOME/dsh-acp/serve-token)'],
    sets: 'remote',
  },
  {
    name: 'max-connections',
    type: 'string',
    value: 'N',
    minimum: 1,
    help: ['connections at once (default 256; one more: 503)'],
    sets: 'remote',
  },
  {
    name: 'max-sockets',
    type: 'string',
    value: 'N',
    minimum: 1,
    help: ['TCP sockets at once, however used (default 1024; one more: 503)'],
    sets: 'remote',
  },
  {
    name: 'max-message-bytes',
    type: 'string',
    value: 'N',
    minimum: 1024,
    help: ['largest POST body or WebSocket frame (default 32 MiB)'],
    sets: 'remote',
  },
  {
    name: 'max-buffered-bytes',
    type: 'string',
    value: 'N',
    minimum: 1024,
    help: [
      'bytes queued for a client that does not read before its',
      'stream is cut, and of its requests not answered yet before',
      'more are refused (429, close 1008) (default 64 MiB)',
    ],
    sets: 'remote',
  },
  {
    name: 'max-output-stall-ms',
    type: 'string',
    value: 'N',
    minimum: 1,
    help: ['queued bytes that do not move for this long cut the stream', '(default 60000)'],
    sets: 'remote',
  },
  {
    name: 'keepalive-ms',
    type: 'string',
    value: 'N',
    minimum: 1,
    help: ['SSE comment / WebSocket ping interval (default 15000)'],
    sets: 'remote',
  },
  {
    name: 'headers-timeout-ms',
    type: 'string',
    value: 'N',
    minimum: 1,
    help: ["a request's headers must arrive within this (default 10000)"],
    sets: 'remote',
  },
  {
    name: 'retention-messages',
    type: 'string',
    value: 'N',
    minimum: 1,
    help: ['messages kept per connection for a resume (default 10000)'],
    sets: 'remote',
  },
  {
    name: 'retention-seconds',
    type: 'string',
    value: 'N',
    minimum: 1,
    help: ['how long they are kept (default 300)'],
    sets: 'remote',
  },
] as const

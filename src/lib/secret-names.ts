/**
 * A variable or header name that says it holds a secret: key, token, secret, password (passwd),
 * auth (authorization) or credential, in any case (`DEEPSEEK_API_KEY`, `GITHUB_TOKEN`, `PGPASSWORD`).
 */
export const SECRET_NAME = /key|token|secret|password|passwd|auth|credential/i

/**
 * The RFC 9728 protected-resource metadata path: the server serves it when an authorization
 * server is configured, the client reads it to learn whether agent tools sign in by OAuth, and
 * metrics label requests to it by this template.
 */
export const PROTECTED_RESOURCE_METADATA_PATH = "/.well-known/oauth-protected-resource";

/** Media types named in more than one place (a form body is sent by the OAuth client and read by the console). */

/** An HTML form's body, and an OAuth introspection request's (RFC 7662). */
export const FORM_URLENCODED = "application/x-www-form-urlencoded";

// oidc-provider ships no type declarations; the tests use a handful of its calls.
declare module "oidc-provider" {
  // biome-ignore lint/suspicious/noExplicitAny: an untyped package
  const Provider: any;
  export default Provider;
}

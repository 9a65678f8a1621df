/**
 * Reads an identity provider's JSON answer under a byte cap (docs/decisions.md "OAuth: provider
 * answers are read under a byte cap"): a metadata document or an introspection answer is a few
 * KiB, so a provider that streams more is refused instead of being buffered whole. The request's
 * own timeout still bounds the time.
 */

/** Larger than any real discovery document or introspection answer. */
export const MAX_PROVIDER_ANSWER_BYTES = 256 * 1024;

export class ProviderAnswerError extends Error {}

/**
 * The parsed JSON body of `response`, read at most `maxBytes` far.
 * @throws ProviderAnswerError when the body is over the cap (the stream is cancelled) or not JSON.
 */
export async function readCappedJson(
  response: Response,
  what: string,
  maxBytes: number = MAX_PROVIDER_ANSWER_BYTES,
): Promise<unknown> {
  const declared = Number(response.headers.get("content-length") ?? Number.NaN);
  if (declared > maxBytes) {
    await response.body?.cancel();
    throw new ProviderAnswerError(`${what} answered ${declared} bytes, over ${maxBytes}`);
  }
  const chunks: Uint8Array[] = [];
  let size = 0;
  const reader = response.body?.getReader();
  if (reader !== undefined) {
    for (;;) {
      const { done, value } = await reader.read();
      if (done) break;
      size += value.byteLength;
      if (size > maxBytes) {
        await reader.cancel();
        throw new ProviderAnswerError(`${what} answered more than ${maxBytes} bytes`);
      }
      chunks.push(value);
    }
  }
  try {
    return JSON.parse(Buffer.concat(chunks).toString("utf8"));
  } catch {
    throw new ProviderAnswerError(`${what} answered something that is not JSON`);
  }
}

// Interim: replaced by the full guard (address classes, DNS resolution) from the delivery work.
export class UnsafeUrlError extends Error {}

export async function assertPublicHttpUrl(url: string, _options: { allowPrivate: boolean }): Promise<void> {
  const parsed = new URL(url);
  if (parsed.protocol !== 'http:' && parsed.protocol !== 'https:') {
    throw new UnsafeUrlError('must be an http or https URL');
  }
}

import { assertPublicHttpUrl, UnsafeUrlError } from '../net/ssrf.js';
import type { ServiceContext } from './context.js';
import { validationError } from './errors.js';

/** Save-time check of a webhook or Discord URL; connect time checks again (DNS rebinding). */
export function outboundUrlCheck(ctx: Pick<ServiceContext, 'config'>) {
  return async (field: string, url: string): Promise<void> => {
    try {
      await assertPublicHttpUrl(url, { allowPrivate: ctx.config.ALLOW_PRIVATE_URLS, field });
    } catch (err) {
      if (err instanceof UnsafeUrlError) throw validationError(err.message);
      throw err;
    }
  };
}

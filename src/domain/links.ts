/** The route of a market's 24 h price chart; the route table serves it and the links below point at it. */
export const MARKET_CHART_PATH = '/markets/{marketId}/chart.svg';

/**
 * The chart's address under the service's public base URL: a search result's `serviceSVGLink` and the
 * Chart link of chat alerts. A trailing slash on the base is tolerated.
 */
export function marketChartUrl(baseUrl: string, marketId: string): string {
  return baseUrl.replace(/\/+$/, '') + MARKET_CHART_PATH.replace('{marketId}', encodeURIComponent(marketId));
}

/** Where the web console is served (src/http/console.ts). */
export const CONSOLE_PATH = '/app';

/** A `/login` link: the code rides in the fragment, which browsers never send to any server or log. */
export function consoleLoginUrl(baseUrl: string, code: string): string {
  return `${baseUrl.replace(/\/+$/, '')}${CONSOLE_PATH}/login#code=${encodeURIComponent(code)}`;
}

/** The route of a market's 24 h price chart; the route table serves it and the links below point at it. */
export const MARKET_CHART_PATH = '/markets/{marketId}/chart.svg';

/**
 * The chart's address under the service's public base URL: a search result's `serviceSVGLink` and the
 * Chart link of chat alerts. A trailing slash on the base is tolerated.
 */
export function marketChartUrl(baseUrl: string, marketId: string): string {
  return baseUrl.replace(/\/+$/, '') + MARKET_CHART_PATH.replace('{marketId}', encodeURIComponent(marketId));
}

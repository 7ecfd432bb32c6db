import { LARGE_TRADE_TYPE, VOLUME_SPIKE_TYPE } from '../../domain/enums.js';
import { child, num, str } from '../senders/summary.js';

// The chat wording of the trade rules (Large Trade, Volume Spike), from the payload's
// `detectionDetails` (src/engine/large-trades.ts, volume-spikes.ts): "💰 $25,400 bought at 62 %",
// "📈 Volume 3.2× the hourly average".

/** "$25,400", "$999.60": whole dollars unless there are cents. */
export function usd(value: number): string {
  const cents = Math.round(value * 100) % 100 !== 0;
  return `$${value.toLocaleString('en-US', { minimumFractionDigits: cents ? 2 : 0, maximumFractionDigits: cents ? 2 : 0 })}`;
}

/** "3.2×", "2×". */
const times = (multiple: number) => `${Number(multiple.toFixed(1))}×`;

const percent = (fraction: number) => `${Number((fraction * 100).toFixed(2))} %`;

/**
 * The headline, the short name (buttons of a message of several rules) and the tone of a trade
 * rule's firing; undefined for other types.
 */
export function tradeWording(
  payload: Record<string, unknown>,
): { headline: string; short: string; tone: 'up' | 'down' | 'neutral' } | undefined {
  const config = child(payload, 'subscriptionTypeConfig');
  const params = child(child(config, 'config'), 'params');
  const details = child(payload, 'detectionDetails');
  switch (str(config, 'type')) {
    case LARGE_TRADE_TYPE: {
      const minUsd = num(params, 'min_usd');
      const side = str(params, 'side');
      const short = `${side === 'BUY' ? 'buys' : side === 'SELL' ? 'sells' : 'trades'}${minUsd === undefined ? '' : ` ≥ ${usd(minUsd)}`}`;
      const value = num(details, 'tradeUsd');
      const price = num(details, 'tradePrice') ?? num(payload, 'detectedValue');
      const tradeSide = str(details, 'tradeSide');
      const verb = tradeSide === 'BUY' ? 'bought' : tradeSide === 'SELL' ? 'sold' : 'traded';
      const headline = value === undefined ? '💰 Large trade' : `💰 ${usd(value)} ${verb}${price === undefined ? '' : ` at ${percent(price)}`}`;
      return { headline, short, tone: tradeSide === 'BUY' ? 'up' : tradeSide === 'SELL' ? 'down' : 'neutral' };
    }
    case VOLUME_SPIKE_TYPE: {
      const multiple = num(params, 'multiple');
      const seen = num(details, 'volumeMultiple');
      const hour = num(details, 'hourVolumeUsd');
      const headline =
        seen === undefined
          ? '📈 Volume spike'
          : `📈 Volume ${times(seen)} the hourly average${hour === undefined ? '' : ` (${usd(hour)} in the last hour)`}`;
      return { headline, short: `volume ${multiple === undefined ? 'spike' : times(multiple)}`, tone: 'neutral' };
    }
    default:
      return undefined;
  }
}

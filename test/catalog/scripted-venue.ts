import type { GammaClient } from '../../src/venue/gamma/client.js';
import type { VenueEvent, VenueMarket } from '../../src/venue/gamma/types.js';

// A scripted venue for the sync tests that need exact catalogs.

export const market = (id: string, over: Partial<VenueMarket> = {}): VenueMarket => ({
  id,
  question: `Q ${id}?`,
  slug: `q-${id}`,
  groupItemTitle: '',
  description: '',
  conditionId: `0x${id}`,
  outcomes: ['Yes', 'No'],
  outcomePrices: [0.4, 0.6],
  clobTokenIds: [`${id}1`, `${id}2`],
  active: true,
  closed: false,
  archived: false,
  acceptingOrders: true,
  negRisk: false,
  volume: 100,
  volume24hr: 10,
  liquidity: 50,
  bestBid: null,
  bestAsk: null,
  lastTradePrice: null,
  tickSize: null,
  image: '',
  icon: '',
  startDate: null,
  endDate: null,
  umaResolutionStatus: '',
  ...over,
});

export const event = (id: string, markets: VenueMarket[], over: Partial<VenueEvent> = {}): VenueEvent => ({
  id,
  slug: `e-${id}`,
  title: `Event ${id}`,
  description: '',
  image: '',
  icon: '',
  active: true,
  closed: false,
  archived: false,
  startDate: null,
  endDate: null,
  volume: 100,
  volume24hr: 10,
  liquidity: 50,
  negRisk: false,
  tags: [],
  markets,
  ...over,
});

/** A scripted venue: the open catalog and single reads are set per test step. */
export function fakeGamma() {
  const venue = {
    open: [] as VenueEvent[],
    getEvent: async (_id: string): Promise<VenueEvent | null> => null,
    getMarket: async (_id: string): Promise<VenueMarket | null> => null,
  };
  const gamma: GammaClient = {
    async *fetchOpenEvents() {
      yield venue.open;
    },
    getEvent: (id) => venue.getEvent(id),
    getMarket: (id) => venue.getMarket(id),
    listTags: async () => [],
  };
  return { venue, gamma };
}

/**
 * A market's outcomes and prices in the venue's own wire encoding, which the spec keeps in our
 * answers: JSON arrays of strings inside strings (`"[\"Yes\",\"No\"]"`, `"[\"0.53\",\"0.47\"]"`).
 */
export function venueEncodedOutcomes(m: { outcomes: string[]; outcomePrices: number[] }) {
  return { outcomes: JSON.stringify(m.outcomes), outcomePrices: JSON.stringify(m.outcomePrices.map(String)) };
}

import type { Rng } from './prng.js';

export const TAGS = [
  { id: '2', label: 'Politics', slug: 'politics' },
  { id: '21', label: 'Crypto', slug: 'crypto' },
  { id: '1', label: 'Sports', slug: 'sports' },
  { id: '100328', label: 'Economy', slug: 'economy' },
  { id: '596', label: 'Culture', slug: 'culture' },
  { id: '74', label: 'Science', slug: 'science' },
  { id: '1401', label: 'Tech', slug: 'tech' },
  { id: '101970', label: 'World', slug: 'world' },
  { id: '144', label: 'Elections', slug: 'elections' },
  { id: '439', label: 'AI', slug: 'ai' },
  { id: '235', label: 'Bitcoin', slug: 'bitcoin' },
  { id: '100196', label: 'Fed', slug: 'fed' },
  { id: '745', label: 'NBA', slug: 'nba' },
  { id: '450', label: 'NFL', slug: 'nfl' },
  { id: '100350', label: 'Soccer', slug: 'soccer' },
  { id: '100265', label: 'Geopolitics', slug: 'geopolitics' },
] as const;

export interface EventTemplate {
  title: string;
  tags: string[];
  /** One question for a single-market event, or several `groupItemTitle`s for a negRisk event. */
  question?: string;
  items?: { title: string; question: string }[];
}

const COUNTRIES = ['France', 'Germany', 'Brazil', 'Japan', 'Canada', 'India', 'Mexico', 'Poland', 'Chile', 'Kenya', 'Italy', 'Spain'];
const PEOPLE = ['Alex Moreau', 'Dana Whitfield', 'Rafael Ortiz', 'Priya Nair', 'Jonas Keller', 'Mei Tanaka', 'Tom Brennan', 'Sara Lindqvist', 'Omar Haddad', 'Lucia Ferraro'];
const STATES = ['Arizona', 'Georgia', 'Ohio', 'Nevada', 'Michigan', 'Texas', 'Florida', 'Virginia', 'Wisconsin'];
const TEAMS_NBA = ['Celtics', 'Lakers', 'Nuggets', 'Knicks', 'Thunder', 'Bucks', 'Warriors', 'Heat', 'Mavericks', 'Suns'];
const TEAMS_NFL = ['Chiefs', 'Eagles', 'Ravens', '49ers', 'Lions', 'Bills', 'Packers', 'Cowboys', 'Bengals', 'Texans'];
const CLUBS = ['Arsenal', 'Real Madrid', 'Bayern Munich', 'Inter', 'PSG', 'Liverpool', 'Barcelona', 'Man City', 'Napoli', 'Benfica'];
const COINS = ['Bitcoin', 'Ethereum', 'Solana', 'XRP', 'Dogecoin'];
const COMPANIES = ['OpenAI', 'Google', 'Anthropic', 'Meta', 'xAI', 'Mistral', 'Apple', 'Nvidia'];
const MONTHS = ['January', 'February', 'March', 'April', 'May', 'June', 'July', 'August', 'September', 'October', 'November', 'December'];
const MOVIES = ['Starfall', 'The Last Orchard', 'Neon Harbor', 'Iron Meridian', 'Quiet Giants', 'Paper Moons'];

const yes = (title: string, tags: string[], question = title): EventTemplate => ({ title, tags, question });
const multi = (title: string, tags: string[], names: string[], question: (name: string) => string): EventTemplate => ({
  title,
  tags,
  items: names.map((name) => ({ title: name, question: question(name) })),
});

/** A realistic event; equal titles are told apart by the catalog's slugs. */
export function drawTemplate(r: Rng): EventTemplate {
  const year = 2026 + r.int(0, 2);
  const month = r.pick(MONTHS);
  const country = r.pick(COUNTRIES);
  const person = r.pick(PEOPLE);
  switch (r.int(0, 15)) {
    case 0:
      return multi(`${country} presidential election ${year}`, ['politics', 'elections', 'world'], r.sample(PEOPLE, r.int(3, 7)), (p) => `Will ${p} win the ${year} ${country} presidential election?`);
    case 1:
      return yes(`Will ${person} win the ${year} ${r.pick(STATES)} governor race?`, ['politics', 'elections']);
    case 2:
      return yes(`Will ${person} be indicted by ${month} 30?`, ['politics']);
    case 3: {
      const coin = r.pick(COINS);
      const target = coin === 'Bitcoin' ? `$${r.int(8, 25) * 10}k` : `$${r.int(2, 90) * 100}`;
      return yes(`Will ${coin} reach ${target} by ${month} 31, ${year}?`, ['crypto', ...(coin === 'Bitcoin' ? ['bitcoin'] : [])]);
    }
    case 4: {
      const coin = r.pick(COINS);
      const base = coin === 'Bitcoin' ? 100_000 : 3_000;
      const levels = Array.from({ length: r.int(4, 7) }, (_, i) => `↑ $${(base + i * base * 0.1).toLocaleString('en-US')}`);
      return multi(`What price will ${coin} hit in ${month} ${year}?`, ['crypto'], levels, (l) => `Will ${coin} reach ${l.slice(2)} in ${month}?`);
    }
    case 5: {
      const [a, b] = r.sample(TEAMS_NBA, 2) as [string, string];
      return yes(`${a} vs. ${b}`, ['sports', 'nba'], `Will the ${a} beat the ${b}?`);
    }
    case 6:
      return multi(`NBA Champion ${year}`, ['sports', 'nba'], r.sample(TEAMS_NBA, r.int(5, 8)), (t) => `Will the ${t} win the ${year} NBA Finals?`);
    case 7:
      return multi(`Super Bowl Champion ${year}`, ['sports', 'nfl'], r.sample(TEAMS_NFL, r.int(5, 8)), (t) => `Will the ${t} win Super Bowl ${year - 1966}?`);
    case 8: {
      const [a, b] = r.sample(CLUBS, 2) as [string, string];
      return yes(`${a} vs. ${b}: will ${a} win?`, ['sports', 'soccer'], `Will ${a} beat ${b} on ${month} ${r.int(1, 28)}?`);
    }
    case 9:
      return multi(`Fed decision in ${month}?`, ['economy', 'fed'], ['50+ bps decrease', '25 bps decrease', 'No change', '25+ bps increase'], (o) => `Fed ${o} after the ${month} ${year} meeting?`);
    case 10:
      return yes(`US recession in ${year}?`, ['economy']);
    case 11:
      return yes(`Will US inflation exceed ${(2 + r.int(0, 20) / 10).toFixed(1)}% in ${month}?`, ['economy']);
    case 12:
      return yes(`Will "${r.pick(MOVIES)}" gross over $${r.int(4, 30) * 10}M on its opening weekend?`, ['culture']);
    case 13:
      return multi(`Best AI model at the end of ${month}?`, ['tech', 'ai'], r.sample(COMPANIES, r.int(4, 6)), (c) => `Will ${c} have the top AI model at the end of ${month} ${year}?`);
    case 14:
      return r.chance(0.5)
        ? yes(`Will SpaceX Starship reach orbit by ${month} ${year}?`, ['science', 'tech'])
        : yes(`Will ${year} be the hottest year on record?`, ['science']);
    default: {
      const [a, b] = r.sample(COUNTRIES, 2) as [string, string];
      return r.chance(0.5)
        ? yes(`${a} x ${b} ceasefire by ${month} ${r.int(1, 28)}?`, ['world', 'geopolitics'])
        : multi(`Next prime minister of ${country}?`, ['world', 'politics'], r.sample(PEOPLE, r.int(3, 6)), (p) => `Will ${p} be the next prime minister of ${country}?`);
    }
  }
}

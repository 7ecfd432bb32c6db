import { useEffect, useState } from 'preact/hooks';
import { api, errorText, type SearchEvent, type Watchlist } from '../api.js';
import { pct } from '../format.js';
import { useLivePrices } from '../live-prices.js';

type Term = { text: string; include: boolean };

/** Watchlists: what each holds with live prices, and a new one built by search-as-you-type. */
export function Watchlists() {
  const [lists, setLists] = useState<Watchlist[]>([]);
  const [error, setError] = useState<string | null>(null);
  const reload = () => api<{ watchLists: Watchlist[] }>('GET', '/watchlists').then((r) => setLists(r.watchLists), (e) => setError(errorText(e)));
  useEffect(() => void reload(), []);
  const marketIds = lists.flatMap((w) => Object.values(w.events).flatMap((e) => e.markets));
  const prices = useLivePrices(marketIds);

  return (
    <section aria-labelledby="wl-title">
      <h1 id="wl-title">Watchlists</h1>
      {error && (
        <p role="alert" class="error">
          {error}
        </p>
      )}
      <NewWatchlist onCreated={reload} />
      {lists.length === 0 && <p>No watchlists yet.</p>}
      {lists.map((w) => (
        <article key={w.id} class="card" data-testid="watchlist">
          <h2>{w.name}</h2>
          <p class="meta">{querySummary(w)}</p>
          <ul class="list">
            {Object.entries(w.events).flatMap(([eventId, e]) =>
              e.markets.map((m) => (
                <li key={`${eventId}/${m}`} class="row">
                  <span>{prices[m]?.question ?? m}</span>
                  <span class="price" aria-label="Displayed price">
                    {pct(prices[m]?.current)}
                  </span>
                </li>
              )),
            )}
          </ul>
          <button
            type="button"
            class="quiet"
            onClick={async () => {
              if (!confirm(`Delete the watchlist “${w.name}” and its rules?`)) return;
              await api('POST', '/watchlists/delete', { watchListId: w.id }).catch((e) => setError(errorText(e)));
              void reload();
            }}
          >
            Delete watchlist
          </button>
        </article>
      ))}
    </section>
  );
}

function querySummary(w: Watchlist): string {
  const terms = [...w.query.keyphrases.map((k) => ({ t: `“${k.text}”`, i: k.include })), ...w.query.tags.map((t) => ({ t: `#${t.tagSlug}`, i: t.include }))];
  if (terms.length === 0) {
    const n = Object.keys(w.events).length;
    return `${n} event${n === 1 ? '' : 's'} picked by hand`;
  }
  return `${terms.map((x) => (x.i ? x.t : `not ${x.t}`)).join(` ${w.query.searchMatchOperator} `)}${w.automaticallyAddMatchingEvents ? ' · adds matching events' : ''}`;
}

function NewWatchlist({ onCreated }: { onCreated: () => void }) {
  const [name, setName] = useState('');
  const [q, setQ] = useState('');
  const [results, setResults] = useState<SearchEvent[]>([]);
  const [picked, setPicked] = useState<Record<string, { title: string; markets: string[] }>>({});
  const [kind, setKind] = useState<'keyphrases' | 'tags'>('keyphrases');
  const [terms, setTerms] = useState<Term[]>([]);
  const [termText, setTermText] = useState('');
  const [op, setOp] = useState<'OR' | 'AND'>('OR');
  const [auto, setAuto] = useState(false);
  const [error, setError] = useState<string | null>(null);
  const [done, setDone] = useState<string | null>(null);

  // Search as you type: the catalog's word search, a moment after the last key.
  useEffect(() => {
    if (q.trim().length < 2) return setResults([]);
    const timer = setTimeout(() => {
      api<SearchEvent[]>('GET', `/catalog/search?q=${encodeURIComponent(q.trim())}&limit=8`).then(setResults, (e) => setError(errorText(e)));
    }, 200);
    return () => clearTimeout(timer);
  }, [q]);

  const previewQuery = async () => {
    if (terms.length === 0) return;
    const path = kind === 'tags' ? '/search/tag-slugs?limit=8' : '/search?limit=8';
    const body = kind === 'tags' ? { tags: terms, searchMatchOperator: op } : { keyphrases: terms, searchMatchOperator: op };
    try {
      setResults(await api<SearchEvent[]>('POST', path, body));
    } catch (err) {
      setError(errorText(err));
    }
  };

  const toggleMarket = (ev: SearchEvent, marketId: string) =>
    setPicked((p) => {
      const cur = p[ev.id]?.markets ?? [];
      const markets = cur.includes(marketId) ? cur.filter((m) => m !== marketId) : [...cur, marketId];
      const next = { ...p };
      if (markets.length === 0) delete next[ev.id];
      else next[ev.id] = { title: ev.title, markets };
      return next;
    });

  const create = async (e: Event) => {
    e.preventDefault();
    setError(null);
    try {
      const body = {
        name,
        query: { [kind]: kind === 'tags' ? terms.map((t) => ({ tagSlug: t.text, include: t.include })) : terms, searchMatchOperator: op },
        automaticallyAddMatchingEvents: auto,
        events: Object.fromEntries(Object.entries(picked).map(([id, p]) => [id, { autoFetch: true, markets: p.markets }])),
      };
      await api('POST', '/watchlists', body);
      setDone(`Created “${name}”.`);
      setName('');
      setQ('');
      setPicked({});
      setTerms([]);
      onCreated();
    } catch (err) {
      setError(errorText(err));
    }
  };

  return (
    <form class="card" onSubmit={create} aria-labelledby="new-wl">
      <h2 id="new-wl">New watchlist</h2>
      <label for="wl-name">Name</label>
      <input id="wl-name" value={name} onInput={(e) => setName(e.currentTarget.value)} required />

      <fieldset>
        <legend>Query (optional): match events by words or tags</legend>
        <div class="inline">
          <label>
            <input type="radio" name="kind" checked={kind === 'keyphrases'} onChange={() => setKind('keyphrases')} /> Keyphrases
          </label>
          <label>
            <input type="radio" name="kind" checked={kind === 'tags'} onChange={() => setKind('tags')} /> Tags
          </label>
          <label>
            <input type="radio" name="op" checked={op === 'OR'} onChange={() => setOp('OR')} /> Any (OR)
          </label>
          <label>
            <input type="radio" name="op" checked={op === 'AND'} onChange={() => setOp('AND')} /> All (AND)
          </label>
        </div>
        <div class="inline">
          <label for="term" class="sr-only">
            {kind === 'tags' ? 'Tag slug' : 'Keyphrase'}
          </label>
          <input id="term" value={termText} placeholder={kind === 'tags' ? 'tag slug, e.g. crypto' : 'keyphrase'} onInput={(e) => setTermText(e.currentTarget.value)} />
          <button type="button" onClick={() => termText.trim() && (setTerms([...terms, { text: termText.trim(), include: true }]), setTermText(''))}>
            Include
          </button>
          <button type="button" onClick={() => termText.trim() && (setTerms([...terms, { text: termText.trim(), include: false }]), setTermText(''))}>
            Exclude
          </button>
          <button type="button" onClick={previewQuery} disabled={terms.length === 0}>
            Show matches
          </button>
        </div>
        <ul class="chips" aria-label="Query terms">
          {terms.map((t, i) => (
            <li key={i}>
              {t.include ? '' : 'not '}
              {t.text}{' '}
              <button type="button" aria-label={`Remove ${t.text}`} onClick={() => setTerms(terms.filter((_, j) => j !== i))}>
                ×
              </button>
            </li>
          ))}
        </ul>
        <label>
          <input type="checkbox" checked={auto} onChange={(e) => setAuto(e.currentTarget.checked)} /> Add matching events automatically, now and as they appear
        </label>
      </fieldset>

      <label for="wl-search">Search events and markets</label>
      <input id="wl-search" type="search" value={q} placeholder="e.g. bitcoin" onInput={(e) => setQ(e.currentTarget.value)} aria-controls="wl-results" />
      <ul id="wl-results" class="list" aria-label="Search results" aria-live="polite">
        {results.map((ev) => (
          <li key={ev.id} data-testid="search-result">
            <strong>{ev.title}</strong>
            {ev.markets.map((m) => (
              <label key={m.id} class="row">
                <span>
                  <input type="checkbox" checked={picked[ev.id]?.markets.includes(m.id) ?? false} onChange={() => toggleMarket(ev, m.id)} /> {m.question}
                </span>
                <span class="price">{pct(Number(JSON.parse(m.outcomePrices)[0]))}</span>
              </label>
            ))}
          </li>
        ))}
      </ul>
      {Object.keys(picked).length > 0 && (
        <p class="meta">
          Adding: {Object.values(picked).map((p) => `${p.title} (${p.markets.length})`).join(', ')}
        </p>
      )}
      {error && (
        <p role="alert" class="error">
          {error}
        </p>
      )}
      {done && <p role="status">{done}</p>}
      <button type="submit">Create watchlist</button>
    </form>
  );
}

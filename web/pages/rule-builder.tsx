import { useEffect, useState } from 'preact/hooks';
import { api, errorText, type PriceHistory, type Watchlist } from '../api.js';
import { pct } from '../format.js';
import { useLivePrices } from '../live-prices.js';
import { PriceChart } from '../price-chart.js';
import { navigate } from '../router.js';
import { chartLevels, defaultParams, distanceText, paramsBody, RULE_TYPES, ruleType, type Param } from '../rule-types.js';
import { ChannelsEditor, channelBody, type ChannelDraft } from './channels-editor.js';

const TRIGGER_INTERVALS = ['0m', '5m', '30m', '60m', '6h', '12h', '24h'];
const CHART_MINUTES = 24 * 60;

/** A new rule: a market, a type and its threshold on the market's chart, when and where to alert. */
export function RuleBuilder() {
  const [lists, setLists] = useState<Watchlist[] | null>(null);
  const [watchlistId, setWatchlistId] = useState('');
  const [marketId, setMarketId] = useState('');
  const [type, setType] = useState(RULE_TYPES[0]!.type);
  const [values, setValues] = useState<Record<string, string>>({});
  const [history, setHistory] = useState<PriceHistory | null>(null);
  const [triggerType, setTriggerType] = useState('Recurring');
  const [interval, setInterval_] = useState('30m');
  const [channels, setChannels] = useState<ChannelDraft[]>([{ type: 'In App', value: '' }]);
  const [dryRun, setDryRun] = useState<string | null>(null);
  const [error, setError] = useState<string | null>(null);

  useEffect(() => {
    api<{ watchLists: Watchlist[] }>('GET', '/watchlists').then((r) => {
      setLists(r.watchLists);
      if (r.watchLists[0]) setWatchlistId(r.watchLists[0].id);
    }, (e) => setError(errorText(e)));
  }, []);

  const watchlist = lists?.find((w) => w.id === watchlistId);
  const markets = watchlist ? Object.entries(watchlist.events).flatMap(([eventId, e]) => e.markets.map((m) => ({ eventId, marketId: m }))) : [];
  const names = useLivePrices(markets.map((m) => m.marketId));
  useEffect(() => {
    if (!markets.some((m) => m.marketId === marketId)) setMarketId(markets[0]?.marketId ?? '');
  }, [watchlistId, lists]);

  const rule = ruleType(type);
  // The chart: the last day of displayed prices, refreshed while the page is open.
  useEffect(() => {
    if (!marketId || !rule.priced) return setHistory(null);
    let stopped = false;
    const load = () =>
      api<PriceHistory>('GET', `/markets/${encodeURIComponent(marketId)}/prices?minutes=${CHART_MINUTES}`).then(
        (h) => !stopped && setHistory(h),
        (e) => setError(errorText(e)),
      );
    void load();
    const timer = setInterval(load, 10_000);
    return () => {
      stopped = true;
      clearInterval(timer);
    };
  }, [marketId, rule.priced]);

  useEffect(() => setValues(defaultParams(rule, history?.current ?? null)), [type, history?.marketId]);

  const body = () => {
    const market = markets.find((m) => m.marketId === marketId);
    return {
      watchlistId,
      subscriptionScope: rule.priced ? 'Market' : 'Watchlist',
      ...(rule.priced && market ? { eventId: market.eventId, marketId: market.marketId } : {}),
      subscriptionTypeConfig: { type, config: { params: paramsBody(rule, values) } },
      triggerType,
      ...(triggerType === 'Recurring' ? { triggerInterval: interval } : {}),
      channels: channels.map(channelBody),
    };
  };

  const runDry = async () => {
    setDryRun(null);
    try {
      const r = await api<{ count: number }>('POST', '/subscriptions/dry-run', body());
      setDryRun(`Over the last 7 days this rule would have fired ${r.count} time${r.count === 1 ? '' : 's'}.`);
    } catch (err) {
      setDryRun(errorText(err));
    }
  };

  const create = async (e: Event) => {
    e.preventDefault();
    setError(null);
    try {
      await api('POST', '/subscriptions', body());
      navigate('/rules');
    } catch (err) {
      setError(errorText(err));
    }
  };

  const levels = history ? chartLevels(rule, values, history.current) : [];
  const distance = history ? distanceText(rule, values, history.current) : null;
  // A click on the chart picks a price level: the threshold of the level types (not a step's size).
  const charted = rule.type === 'Crossing Step' ? undefined : rule.params.find((p): p is Extract<Param, { kind: 'percent' }> => p.kind === 'percent' && p.charted === true);

  if (lists === null) return <p class="loading">Loading your watchlists…</p>;
  if (lists.length === 0) return <p>Make a watchlist first: rules watch its events and markets.</p>;
  return (
    <form onSubmit={create} aria-labelledby="rb-title">
      <h1 id="rb-title">New rule</h1>
      <div class="grid">
        <div>
          <label for="rb-watchlist">Watchlist</label>
          <select id="rb-watchlist" value={watchlistId} onChange={(e) => setWatchlistId(e.currentTarget.value)}>
            {lists.map((w) => (
              <option key={w.id} value={w.id}>
                {w.name}
              </option>
            ))}
          </select>
        </div>
        <div>
          <label for="rb-type">Rule type</label>
          <select id="rb-type" value={type} onChange={(e) => setType(e.currentTarget.value)}>
            {RULE_TYPES.map((r) => (
              <option key={r.type} value={r.type}>
                {r.type}
              </option>
            ))}
          </select>
          <p class="hint">Fires when {rule.help}.</p>
        </div>
        {rule.priced && (
          <div>
            <label for="rb-market">Market</label>
            <select id="rb-market" value={marketId} onChange={(e) => setMarketId(e.currentTarget.value)}>
              {markets.map((m) => (
                <option key={m.marketId} value={m.marketId}>
                  {names[m.marketId]?.question ?? m.marketId}
                </option>
              ))}
            </select>
          </div>
        )}
      </div>

      {rule.priced && history && (
        <figure class="card">
          <figcaption>
            {history.question}: now <strong data-testid="current-price">{pct(history.current)}</strong>
            {charted && ' · click the chart (or focus it and press ↑ ↓) to set the threshold'}
          </figcaption>
          <PriceChart
            points={history.points}
            current={history.current}
            levels={levels}
            label={`Price of ${history.question} over the last day, with the threshold line`}
            onPick={charted ? (price) => setValues({ ...values, [charted.name]: String(Math.min(charted.max, Math.max(charted.min, Math.round(price * 1000) / 10))) }) : undefined}
          />
          {distance && (
            <p aria-live="polite" data-testid="distance">
              Distance to trigger: {distance}
            </p>
          )}
        </figure>
      )}

      <fieldset>
        <legend>Parameters</legend>
        {rule.params.length === 0 && <p class="hint">This type has no parameters.</p>}
        {rule.params.map((p) => (
          <ParamInput key={p.name} param={p} value={values[p.name] ?? ''} onChange={(v) => setValues({ ...values, [p.name]: v })} />
        ))}
      </fieldset>

      <fieldset>
        <legend>When</legend>
        <div class="grid">
          <div>
            <label for="rb-trigger">Trigger</label>
            <select id="rb-trigger" value={triggerType} onChange={(e) => setTriggerType(e.currentTarget.value)}>
              <option value="Recurring">Recurring</option>
              <option value="One Time">One time (then pause)</option>
            </select>
          </div>
          {triggerType === 'Recurring' && (
            <div>
              <label for="rb-interval">At most one alert per</label>
              <select id="rb-interval" value={interval} onChange={(e) => setInterval_(e.currentTarget.value)}>
                {TRIGGER_INTERVALS.map((i) => (
                  <option key={i} value={i}>
                    {i === '0m' ? 'no pause' : i}
                  </option>
                ))}
              </select>
            </div>
          )}
        </div>
      </fieldset>

      <ChannelsEditor channels={channels} onChange={setChannels} />

      <div class="actions">
        <button type="button" onClick={runDry}>
          Dry run (last 7 days)
        </button>
        <button type="submit">Create rule</button>
      </div>
      {dryRun && (
        <p role="status" data-testid="dry-run">
          {dryRun}
        </p>
      )}
      {error && (
        <p role="alert" class="error">
          {error}
        </p>
      )}
    </form>
  );
}

function ParamInput({ param, value, onChange }: { param: Param; value: string; onChange: (v: string) => void }) {
  const id = `param-${param.name}`;
  if (param.kind === 'choice')
    return (
      <div>
        <label for={id}>{param.label}</label>
        <select id={id} value={value} onChange={(e) => onChange(e.currentTarget.value)}>
          {param.optional && <option value="">any</option>}
          {param.options.map((o) => (
            <option key={o} value={o}>
              {o}
            </option>
          ))}
        </select>
      </div>
    );
  return (
    <div>
      <label for={id}>
        {param.label}
        {param.kind === 'number' && param.unit ? ` (${param.unit})` : ''}
      </label>
      <input
        id={id}
        type="number"
        inputMode="decimal"
        min={param.min}
        max={param.kind === 'percent' ? param.max : undefined}
        step={param.step}
        value={value}
        onInput={(e) => onChange(e.currentTarget.value)}
        required
      />
    </div>
  );
}

import { useEffect, useState } from 'preact/hooks';
import { api, errorText, type Subscription } from '../api.js';
import { when } from '../format.js';
import { ruleLabel } from '../rule-types.js';

const SNOOZE = ['1h', '8h', '24h', '1w'];

/** Every rule: status, how often it fired, and pause, restart, snooze and delete. */
export function Rules() {
  const [subs, setSubs] = useState<Subscription[]>([]);
  const [error, setError] = useState<string | null>(null);
  const [note, setNote] = useState<string | null>(null);
  const reload = () => api<{ subscriptions: Subscription[] }>('GET', '/subscriptions').then((r) => setSubs(r.subscriptions), (e) => setError(errorText(e)));
  useEffect(() => void reload(), []);

  const act = async (what: string, fn: () => Promise<unknown>) => {
    setError(null);
    try {
      await fn();
      setNote(what);
      await reload();
    } catch (err) {
      setError(errorText(err));
    }
  };

  return (
    <section aria-labelledby="rules-title">
      <h1 id="rules-title">Rules</h1>
      {error && (
        <p role="alert" class="error">
          {error}
        </p>
      )}
      {note && <p role="status">{note}</p>}
      {subs.length === 0 && <p>No rules yet: make one under “New rule”.</p>}
      <table class="rules">
        <caption class="sr-only">Your rules</caption>
        <thead>
          <tr>
            <th scope="col">Rule</th>
            <th scope="col">Status</th>
            <th scope="col">Fired</th>
            <th scope="col">Last fired</th>
            <th scope="col">Actions</th>
          </tr>
        </thead>
        <tbody>
          {subs.map((s) => {
            const id = s.subscriptionId;
            const label = ruleLabel(s.subscriptionTypeConfig.type, s.subscriptionTypeConfig.config.params);
            return (
              <tr key={id} data-testid="rule">
                <td>
                  <strong>{label}</strong>
                  <div class="meta">
                    {s.marketQuestion ?? s.eventTitle ?? s.watchlistName} · {s.triggerType}
                    {s.triggerInterval ? `, ${s.triggerInterval}` : ''} · {s.channels.map((c) => c.type).join(', ')}
                  </div>
                </td>
                <td>
                  <span class={s.status.enabled ? 'ok' : 'off'}>{s.status.enabled ? 'Active' : 'Paused'}</span>
                  <div class="meta">{s.status.reason}</div>
                </td>
                <td>{s.triggerCount}</td>
                <td>{when(s.lastTriggeredAt)}</td>
                <td class="actions">
                  {s.status.enabled ? (
                    <button type="button" onClick={() => act(`Paused ${label}.`, () => api('POST', `/subscription/${id}/pause`))}>
                      Pause
                    </button>
                  ) : (
                    <button type="button" onClick={() => act(`Restarted ${label}.`, () => api('POST', `/subscription/${id}/restart`))}>
                      Restart
                    </button>
                  )}
                  <label for={`snooze-${id}`} class="sr-only">
                    Snooze {label}
                  </label>
                  <select
                    id={`snooze-${id}`}
                    value=""
                    onChange={(e) => {
                      const span = e.currentTarget.value;
                      if (span) void act(`Snoozed ${label} for ${span}: alerts reach the inbox only.`, () => api('POST', `/subscription/${id}/snooze`, { for: span }));
                    }}
                  >
                    <option value="">Snooze…</option>
                    {SNOOZE.map((x) => (
                      <option key={x} value={x}>
                        {x}
                      </option>
                    ))}
                  </select>
                  <button type="button" onClick={() => act(`Snooze of ${label} ended.`, () => api('DELETE', `/subscription/${id}/snooze`))}>
                    Unsnooze
                  </button>
                  <button
                    type="button"
                    class="danger"
                    onClick={() => confirm(`Delete the rule ${label}?`) && act(`Deleted ${label}.`, () => api('DELETE', `/subscription/${id}`))}
                  >
                    Delete
                  </button>
                </td>
              </tr>
            );
          })}
        </tbody>
      </table>
    </section>
  );
}

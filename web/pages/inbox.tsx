import { useEffect, useState } from 'preact/hooks';
import { api, errorText, type Delivery, type Notification } from '../api.js';
import { headline, when } from '../format.js';

/** The In App inbox, live over the notification stream (the session cookie authenticates it). */
export function Inbox() {
  const [items, setItems] = useState<Notification[]>([]);
  const [live, setLive] = useState(false);
  const [error, setError] = useState<string | null>(null);

  useEffect(() => {
    api<{ notifications: Notification[] }>('GET', '/notifications?limit=50').then((r) => setItems(r.notifications), (e) => setError(errorText(e)));
    const stream = new EventSource('/notifications/stream');
    stream.onopen = () => setLive(true);
    stream.onerror = () => setLive(false);
    stream.addEventListener('notification', (e) => {
      const n = JSON.parse((e as MessageEvent<string>).data) as Omit<Notification, 'readAt'>;
      setItems((xs) => (xs.some((x) => x.id === n.id) ? xs : [{ ...n, readAt: null }, ...xs]));
    });
    return () => stream.close();
  }, []);

  const markRead = async (id: string) => {
    try {
      await api('POST', `/notifications/${id}/read`);
      setItems((xs) => xs.map((x) => (x.id === id ? { ...x, readAt: new Date().toISOString() } : x)));
    } catch (err) {
      setError(errorText(err));
    }
  };

  // Unread first, each group newest first.
  const sorted = [...items].sort((a, b) => Number(a.readAt !== null) - Number(b.readAt !== null) || b.createdAt.localeCompare(a.createdAt));
  const unread = items.filter((x) => !x.readAt).length;
  return (
    <section aria-labelledby="inbox-title">
      <h1 id="inbox-title">
        Inbox <span class="badge">{unread} unread</span>
      </h1>
      <p class="hint" aria-live="polite">
        {live ? '● Live: new alerts appear here as they fire.' : '○ Connecting to the live stream…'}
      </p>
      {error && (
        <p role="alert" class="error">
          {error}
        </p>
      )}
      {sorted.length === 0 && <p>No alerts yet. Make a rule under “New rule”; its alerts arrive here.</p>}
      <ul class="list" aria-label="Alerts">
        {sorted.map((n) => (
          <InboxItem key={n.id} n={n} onRead={() => markRead(n.id)} onError={setError} />
        ))}
      </ul>
    </section>
  );
}

function InboxItem({ n, onRead, onError }: { n: Notification; onRead: () => void; onError: (e: string) => void }) {
  const [deliveries, setDeliveries] = useState<Delivery[] | null>(null);
  const [open, setOpen] = useState(false);
  const load = async () => {
    try {
      setDeliveries((await api<{ deliveries: Delivery[] }>('GET', `/notifications/${n.id}/deliveries`)).deliveries);
    } catch (err) {
      onError(errorText(err));
    }
  };
  // While a channel is still being tried, follow it until it settles.
  useEffect(() => {
    if (!open || !deliveries?.some((d) => d.status === 'PENDING')) return;
    const timer = setTimeout(load, 1000);
    return () => clearTimeout(timer);
  }, [open, deliveries]);
  const toggle = () => {
    if (!open) void load();
    setOpen(!open);
  };
  const redeliver = async () => {
    try {
      await api('POST', `/notifications/${n.id}/redeliver`);
      await load();
    } catch (err) {
      onError(errorText(err));
    }
  };
  return (
    <li class={n.readAt ? 'item read' : 'item unread'} data-testid="inbox-item">
      <div class="row">
        <div>
          <strong>{headline(n.payload)}</strong>
          <div class="meta">
            {when(n.createdAt)} {n.readAt ? '· read' : '· unread'}
          </div>
        </div>
        <div class="actions">
          {!n.readAt && (
            <button type="button" onClick={onRead}>
              Mark read
            </button>
          )}
          <button type="button" aria-expanded={open} onClick={toggle}>
            Deliveries
          </button>
        </div>
      </div>
      {open && (
        <div class="deliveries" data-testid="deliveries">
          {deliveries === null && <p>Loading deliveries…</p>}
          {deliveries?.length === 0 && <p>No channel deliveries.</p>}
          {deliveries && deliveries.length > 0 && (
            <table>
              <caption>Deliveries of this alert</caption>
              <thead>
                <tr>
                  <th scope="col">Channel</th>
                  <th scope="col">Status</th>
                  <th scope="col">Attempts</th>
                </tr>
              </thead>
              <tbody>
                {deliveries.map((d) => (
                  <tr key={d.id}>
                    <td>{d.channel}</td>
                    <td class={`status ${d.status}`}>{d.status}</td>
                    <td>
                      {d.attempts.length === 0
                        ? '–'
                        : d.attempts.map((a, i) => (
                            <div key={i}>
                              {when(a.at)}: {a.statusCode ?? ''} {a.error ?? 'ok'}
                            </div>
                          ))}
                    </td>
                  </tr>
                ))}
              </tbody>
            </table>
          )}
          {deliveries?.some((d) => d.status === 'FAILED') && (
            <button type="button" onClick={redeliver}>
              Redeliver failed channels
            </button>
          )}
        </div>
      )}
    </li>
  );
}

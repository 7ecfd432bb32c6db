import { useEffect, useState } from 'preact/hooks';
import { api, errorText, type Me, type TokenSummary } from '../api.js';
import { when } from '../format.js';
import { LinkedAccounts } from './linked-accounts.js';

/** Tokens and sessions, the webhook signing secret, and the chat accounts linked to this one. */
export function Settings({ me }: { me: Me }) {
  const [tokens, setTokens] = useState<TokenSummary[]>([]);
  const [name, setName] = useState('');
  const [issued, setIssued] = useState<string | null>(null);
  const [secret, setSecret] = useState<string | null>(null);
  const [error, setError] = useState<string | null>(null);
  const reload = () => api<{ tokens: TokenSummary[] }>('GET', '/tokens').then((r) => setTokens(r.tokens), (e) => setError(errorText(e)));
  useEffect(() => void reload(), []);

  const guard = async (fn: () => Promise<void>) => {
    setError(null);
    try {
      await fn();
    } catch (err) {
      setError(errorText(err));
    }
  };

  return (
    <section aria-labelledby="settings-title">
      <h1 id="settings-title">Settings</h1>
      {error && (
        <p role="alert" class="error">
          {error}
        </p>
      )}
      <article class="card">
        <h2>API tokens and sessions</h2>
        <table>
          <caption class="sr-only">Tokens and console sessions</caption>
          <thead>
            <tr>
              <th scope="col">Name</th>
              <th scope="col">Kind</th>
              <th scope="col">Starts with</th>
              <th scope="col">Last used</th>
              <th scope="col">Expires</th>
              <th scope="col">
                <span class="sr-only">Actions</span>
              </th>
            </tr>
          </thead>
          <tbody>
            {tokens.map((t) => (
              <tr key={t.id} data-testid="token">
                <td>{t.name}</td>
                <td>{t.kind === 'session' ? 'console session' : 'API token'}</td>
                <td>
                  <code>{t.prefix}…</code>
                </td>
                <td>{when(t.lastUsedAt)}</td>
                <td>{t.expiresAt ? when(t.expiresAt) : 'never'}</td>
                <td>
                  <button
                    type="button"
                    class="danger"
                    onClick={() =>
                      guard(async () => {
                        if (!confirm(t.kind === 'session' ? 'End this session? That browser is signed out.' : `Revoke ${t.name}? Programs using it are refused.`)) return;
                        await api('DELETE', `/tokens/${t.id}`);
                        await reload();
                      })
                    }
                  >
                    {t.kind === 'session' ? 'End session' : 'Revoke'}
                  </button>
                </td>
              </tr>
            ))}
          </tbody>
        </table>
        <form
          class="inline"
          onSubmit={(e) => {
            e.preventDefault();
            void guard(async () => {
              const r = await api<{ token: string }>('POST', '/tokens', { name });
              setIssued(r.token);
              setName('');
              await reload();
            });
          }}
        >
          <label for="token-name">New token name</label>
          <input id="token-name" value={name} onInput={(e) => setName(e.currentTarget.value)} required />
          <button type="submit">Create token</button>
        </form>
        {issued && (
          <p role="status">
            Your new token, shown this once: <code class="secret">{issued}</code>
          </p>
        )}
      </article>

      <article class="card">
        <h2>Webhook signing secret</h2>
        <p class="hint">Webhook deliveries are signed with it (Standard Webhooks). It is shown only when you ask.</p>
        {secret && (
          <p>
            <code class="secret">{secret}</code>
          </p>
        )}
        <div class="actions">
          <button type="button" onClick={() => guard(async () => setSecret((await api<{ secret: string }>('GET', '/webhook-secret')).secret))}>
            Show secret
          </button>
          <button
            type="button"
            onClick={() =>
              guard(async () => {
                if (!confirm('Rotate the secret? Receivers must switch to the new one (the old one still signs for a grace period).')) return;
                setSecret((await api<{ secret: string }>('POST', '/webhook-secret/rotate')).secret);
              })
            }
          >
            Rotate secret
          </button>
        </div>
      </article>

      <LinkedAccounts me={me} />
    </section>
  );
}

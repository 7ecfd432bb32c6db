import { useEffect, useState } from 'preact/hooks';
import { api, errorText, rememberCsrf, type Me } from '../api.js';

interface Session {
  csrfToken: string;
  userId: string;
}

/** Sign in by pasting an API token, or by opening a /login link (its code rides in the #fragment). */
export function SignIn({ onSignedIn }: { onSignedIn: (me: Me) => void }) {
  const [token, setToken] = useState('');
  const [error, setError] = useState<string | null>(null);
  const [busy, setBusy] = useState(false);
  const code = new URLSearchParams(location.hash.slice(1)).get('code');

  const start = async (body: { token: string } | { loginCode: string }) => {
    setBusy(true);
    setError(null);
    try {
      const session = await api<Session>('POST', '/sessions', body);
      rememberCsrf(session.csrfToken);
      // The code is spent: keep it out of the history and the address bar.
      history.replaceState(null, '', location.pathname);
      onSignedIn(await api<Me>('GET', '/me'));
    } catch (err) {
      setError(errorText(err));
    } finally {
      setBusy(false);
    }
  };

  useEffect(() => {
    if (code) void start({ loginCode: code });
  }, []);

  return (
    <main id="main" class="signin">
      <h1>Sign in to Oddswatch</h1>
      {code && busy && <p>Signing you in with your link…</p>}
      {error && (
        <p role="alert" class="error">
          {error}
        </p>
      )}
      <form
        onSubmit={(e) => {
          e.preventDefault();
          void start({ token: token.trim() });
        }}
      >
        <label for="token">API token</label>
        <input id="token" type="password" autoComplete="off" value={token} onInput={(e) => setToken(e.currentTarget.value)} placeholder="ow_…" required />
        <button type="submit" disabled={busy}>
          Sign in
        </button>
      </form>
      <p class="hint">
        No token at hand? Send <code>/login</code> to the Oddswatch bot in Telegram or Discord: it answers privately with a link that signs you in
        (once, within 10 minutes). A token comes from <code>/token</code> or <code>npm run cli -- accounts create</code>.
      </p>
    </main>
  );
}

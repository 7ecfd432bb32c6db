import { render } from 'preact';
import { useEffect, useState } from 'preact/hooks';
import { api, hasSession, rememberCsrf, whenSignedOut, type Me } from './api.js';
import { Inbox } from './pages/inbox.js';
import { RuleBuilder } from './pages/rule-builder.js';
import { Rules } from './pages/rules.js';
import { Settings } from './pages/settings.js';
import { SignIn } from './pages/sign-in.js';
import { Watchlists } from './pages/watchlists.js';
import { Link, navigate, useRoute } from './router.js';
import './style.css';

const PAGES = [
  { path: '/', label: 'Inbox', view: Inbox },
  { path: '/watchlists', label: 'Watchlists', view: Watchlists },
  { path: '/rules/new', label: 'New rule', view: RuleBuilder },
  { path: '/rules', label: 'Rules', view: Rules },
  { path: '/settings', label: 'Settings', view: Settings },
] as const;

const FIRST_VIEW = 'console:first-view';

function App() {
  const route = useRoute();
  const [me, setMe] = useState<Me | null | undefined>(undefined);

  useEffect(() => {
    whenSignedOut(() => setMe(null));
    // Never signed in on this browser (or signed out): the sign-in page at once, no round trip.
    if (route === '/login' || !hasSession()) return setMe(null);
    api<Me>('GET', '/me').then(setMe, () => setMe(null));
  }, []);

  // When the first real view (sign-in or a page) is on screen: the budget's measure (docs/console.md).
  useEffect(() => {
    if (me !== undefined && performance.getEntriesByName(FIRST_VIEW).length === 0) performance.mark(FIRST_VIEW);
  }, [me !== undefined]);

  if (me === undefined) return <p class="loading">Loading…</p>;
  if (me === null || route === '/login')
    return (
      <SignIn
        onSignedIn={(signedIn) => {
          setMe(signedIn);
          navigate('/');
        }}
      />
    );

  const page = PAGES.find((p) => p.path === route) ?? PAGES[0];
  const View = page.view;
  const signOut = async () => {
    await api('DELETE', '/sessions/current').catch(() => {});
    rememberCsrf(null);
    setMe(null);
  };
  return (
    <>
      <a class="skip" href="#main">
        Skip to content
      </a>
      <header>
        <strong class="brand">Oddswatch</strong>
        <nav aria-label="Console">
          {PAGES.map((p) => (
            <Link key={p.path} to={p.path} current={p === page}>
              {p.label}
            </Link>
          ))}
        </nav>
        <button type="button" class="quiet" onClick={signOut}>
          Sign out
        </button>
      </header>
      <main id="main" tabIndex={-1}>
        <View me={me} />
      </main>
    </>
  );
}

render(<App />, document.getElementById('root')!);

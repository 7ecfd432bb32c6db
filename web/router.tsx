import { useEffect, useState } from 'preact/hooks';

/** The console's pages live under /app; the service answers index.html for every one of them. */
export const BASE = '/app';

const current = () => location.pathname.replace(/^\/app/, '') || '/';

export function navigate(to: string) {
  history.pushState(null, '', BASE + to);
  dispatchEvent(new PopStateEvent('popstate'));
}

export function useRoute(): string {
  const [route, setRoute] = useState(current);
  useEffect(() => {
    const update = () => setRoute(current());
    addEventListener('popstate', update);
    return () => removeEventListener('popstate', update);
  }, []);
  return route;
}

/** An in-console link: a real <a> (keyboard, middle click) that does not reload the page. */
export function Link({ to, children, current }: { to: string; children: preact.ComponentChildren; current?: boolean }) {
  return (
    <a
      href={BASE + to}
      aria-current={current ? 'page' : undefined}
      onClick={(e) => {
        if (e.metaKey || e.ctrlKey || e.shiftKey || e.button !== 0) return;
        e.preventDefault();
        navigate(to);
      }}
    >
      {children}
    </a>
  );
}

import { useEffect, useState } from 'preact/hooks';
import { api, errorText, type LinkCode, type Me } from '../api.js';
import { when } from '../format.js';

type Platform = keyof Me['links'];
const PLATFORMS: { id: Platform; name: string }[] = [
  { id: 'telegram', name: 'Telegram' },
  { id: 'discord', name: 'Discord' },
];
/** While a code is live, how often GET /me is asked whether it was redeemed (the API allows 120 a minute). */
const POLL_MS = 4000;

/**
 * The Telegram and Discord users linked to this account (GET /me), a one-time code to link one
 * (POST /links, redeemed with /link in the chat), and unlinking (DELETE /links/{platform}).
 */
export function LinkedAccounts({ me }: { me: Me }) {
  const [links, setLinks] = useState(me.links);
  const [code, setCode] = useState<LinkCode | null>(null);
  const [now, setNow] = useState(Date.now());
  const [news, setNews] = useState<string | null>(null);
  const [error, setError] = useState<string | null>(null);

  const guard = async (fn: () => Promise<void>) => {
    setError(null);
    try {
      await fn();
    } catch (err) {
      setError(errorText(err));
    }
  };

  // A shown code is followed until it is used or expires: the page says "linked" without a reload.
  const expired = code !== null && Date.parse(code.expiresAt) <= now;
  useEffect(() => {
    if (!code || expired) return;
    const timer = setInterval(async () => {
      setNow(Date.now());
      const fresh = await api<Me>('GET', '/me').catch(() => null);
      if (!fresh) return;
      const added = PLATFORMS.find((p) => fresh.links[p.id] !== null && fresh.links[p.id] !== links[p.id]);
      setLinks(fresh.links);
      if (added) {
        setCode(null);
        setNews(`${added.name} user ${fresh.links[added.id]} is now linked to this account.`);
      }
    }, POLL_MS);
    return () => clearInterval(timer);
  }, [code, expired, links]);

  const makeCode = () =>
    guard(async () => {
      setNews(null);
      setCode(await api<LinkCode>('POST', '/links'));
      setNow(Date.now());
    });

  const unlink = (p: (typeof PLATFORMS)[number]) =>
    guard(async () => {
      const ok = confirm(
        `Unlink ${p.name} user ${links[p.id]}?\n\n` +
          `Their next ${p.name} message starts a new, empty account of their own: in ${p.name} they no longer see or change ` +
          `this account's watchlists, alerts and inbox. Alerts this account sends to ${p.name} chats keep arriving there. ` +
          `To link again, make a new code here.`,
      );
      if (!ok) return;
      try {
        await api('DELETE', `/links/${p.id}`);
      } catch (err) {
        // Unlinked meanwhile (another tab, the API): the 404 says so, and the rows show what is true now.
        setLinks((await api<Me>('GET', '/me').catch(() => ({ links }))).links);
        throw err;
      }
      setLinks({ ...links, [p.id]: null });
      setNews(`${p.name} is no longer linked.`);
    });

  const unlinked = PLATFORMS.filter((p) => links[p.id] === null);
  return (
    <article class="card" aria-labelledby="links-title" data-testid="linked-accounts">
      <h2 id="links-title">Linked chat accounts</h2>
      <p class="hint">
        A linked Telegram or Discord user acts as this account in the bot: the same watchlists, alerts and inbox.
      </p>
      <table>
        <caption class="sr-only">Chat accounts linked to this account</caption>
        <tbody>
          {PLATFORMS.map((p) => (
            <tr key={p.id} data-testid={`link-${p.id}`}>
              <th scope="row">{p.name}</th>
              <td>{links[p.id] === null ? <span class="off">not linked</span> : <span class="ok">linked: user {links[p.id]}</span>}</td>
              <td>
                {links[p.id] !== null && (
                  <button type="button" class="danger" aria-label={`Unlink ${p.name}`} onClick={() => unlink(p)}>
                    Unlink
                  </button>
                )}
              </td>
            </tr>
          ))}
        </tbody>
      </table>
      {error && (
        <p role="alert" class="error">
          {error}
        </p>
      )}
      <p role="status" class="ok">
        {news}
      </p>
      {unlinked.length === 0 ? (
        <p class="hint">Both are linked. To link another user, unlink one first.</p>
      ) : (
        <div class="actions">
          <button type="button" onClick={makeCode}>
            {code ? 'Make a new code' : 'Link a chat account'}
          </button>
        </div>
      )}
      {code && unlinked.length > 0 && <CodeCard code={code} expired={expired} now={now} platforms={unlinked} />}
      <p class="meta">
        Account {me.userId}, since {when(me.createdAt)}
      </p>
    </article>
  );
}

/** The words to send each bot: Discord's slash command takes the code as its `code` option. */
const command = (platform: Platform, code: string) => (platform === 'telegram' ? `/link ${code}` : `/link code:${code}`);

function CodeCard({ code, expired, now, platforms }: { code: LinkCode; expired: boolean; now: number; platforms: typeof PLATFORMS }) {
  const minutes = Math.max(1, Math.ceil((Date.parse(code.expiresAt) - now) / 60_000));
  if (expired)
    return (
      <p class="error" data-testid="link-code">
        The code {code.code} has expired (a code lasts 10 minutes). Make a new one.
      </p>
    );
  return (
    <div data-testid="link-code">
      <p>
        Your link code is <code class="secret">{code.code}</code>. Send it to the bot from the chat account to link (best in a private chat
        with the bot). It works once, until {new Date(code.expiresAt).toLocaleTimeString()} (about {minutes} minute
        {minutes === 1 ? '' : 's'}); a new code replaces it.
      </p>
      {platforms.map((p) => (
        <CopyField key={p.id} id={`link-command-${p.id}`} label={`In ${p.name}, send`} value={command(p.id, code.code)} />
      ))}
    </div>
  );
}

/** A read-only field with a Copy button: the clipboard where the browser allows it, else selected for Ctrl+C. */
function CopyField({ id, label, value }: { id: string; label: string; value: string }) {
  const [copied, setCopied] = useState<string | null>(null);
  const copy = async () => {
    const field = document.getElementById(id) as HTMLInputElement;
    try {
      // navigator.clipboard exists only on https or localhost.
      await navigator.clipboard.writeText(value);
      setCopied('Copied.');
    } catch {
      field.select();
      setCopied('Selected: press Ctrl+C (⌘C) to copy.');
    }
  };
  return (
    <div class="inline copy">
      <label for={id}>{label}</label>
      <input id={id} class="command" readOnly value={value} onFocus={(e) => e.currentTarget.select()} />
      <button type="button" aria-label={`Copy: ${value}`} onClick={copy}>
        Copy
      </button>
      <span role="status" class="hint">
        {copied}
      </span>
    </div>
  );
}

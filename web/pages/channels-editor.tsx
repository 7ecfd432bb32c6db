import { useState } from 'preact/hooks';
import { api, errorText } from '../api.js';

export interface ChannelDraft {
  type: 'In App' | 'Webhook' | 'Discord' | 'Telegram';
  /** The channel's one setting: a URL, or a Telegram chat id. */
  value: string;
}

const SETTING: Record<ChannelDraft['type'], { label: string; key?: string }> = {
  'In App': { label: '' },
  Webhook: { label: 'Webhook URL', key: 'webhookUrl' },
  Discord: { label: 'Discord webhook URL', key: 'discordWebhookUrl' },
  Telegram: { label: 'Telegram chat id', key: 'telegramChatId' },
};

export function channelBody(c: ChannelDraft) {
  const key = SETTING[c.type].key;
  if (!key) return { type: c.type };
  return { type: c.type, settings: { [key]: c.type === 'Telegram' ? Number(c.value) : c.value } };
}

/** The rule's channels, each with a Test button that sends a sample alert (POST /channels/test). */
export function ChannelsEditor({ channels, onChange }: { channels: ChannelDraft[]; onChange: (c: ChannelDraft[]) => void }) {
  const [results, setResults] = useState<Record<number, string>>({});
  const set = (i: number, c: ChannelDraft) => onChange(channels.map((x, j) => (j === i ? c : x)));
  const test = async (i: number) => {
    setResults({ ...results, [i]: 'Sending a test…' });
    try {
      const r = await api<{ ok: boolean; statusCode: number | null; error: string | null; durationMs: number }>('POST', '/channels/test', channelBody(channels[i]!));
      setResults((x) => ({ ...x, [i]: r.ok ? `Test delivered (${r.statusCode ?? 'ok'}, ${r.durationMs} ms)` : `Test failed: ${r.error ?? r.statusCode}` }));
    } catch (err) {
      setResults((x) => ({ ...x, [i]: errorText(err) }));
    }
  };
  return (
    <fieldset>
      <legend>Channels</legend>
      {channels.map((c, i) => (
        <div key={i} class="inline channel" data-testid="channel">
          <label for={`ch-type-${i}`} class="sr-only">
            Channel {i + 1} type
          </label>
          <select id={`ch-type-${i}`} value={c.type} onChange={(e) => set(i, { type: e.currentTarget.value as ChannelDraft['type'], value: '' })}>
            {Object.keys(SETTING).map((t) => (
              <option key={t}>{t}</option>
            ))}
          </select>
          {SETTING[c.type].key && (
            <>
              <label for={`ch-value-${i}`} class="sr-only">
                {SETTING[c.type].label}
              </label>
              <input id={`ch-value-${i}`} placeholder={SETTING[c.type].label} value={c.value} onInput={(e) => set(i, { ...c, value: e.currentTarget.value })} />
            </>
          )}
          <button type="button" onClick={() => test(i)}>
            Test
          </button>
          {channels.length > 1 && (
            <button type="button" aria-label={`Remove channel ${i + 1}`} onClick={() => onChange(channels.filter((_, j) => j !== i))}>
              Remove
            </button>
          )}
          {results[i] && <span role="status">{results[i]}</span>}
        </div>
      ))}
      <button type="button" onClick={() => onChange([...channels, { type: 'Webhook', value: '' }])}>
        Add a channel
      </button>
    </fieldset>
  );
}

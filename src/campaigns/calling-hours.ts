/**
 * Calling hours on the campaign's clock (docs/campaigns.md "Calling hours"). Pure, and deterministic
 * given its inputs: the campaign's workflow imports it and calls it with workflow time.
 *
 * The campaign clock runs `60 000 / minuteMs` times as fast as real time from its anchor (the
 * campaign's creation): with CAMPAIGN_MINUTE_MS at its default of 60 000 it is the real clock; a
 * test that sets it to 10 ms lives a whole day in 14.4 s, so a window closes and reopens in seconds.
 */

export interface CallingHours {
  /** `HH:MM`, local time in `timezone`: calls are placed from then... */
  start: string;
  /** ...until then (`HH:MM`; before `start` means the window spans midnight). */
  end: string;
  /** An IANA time zone (`America/New_York`). */
  timezone: string;
}

/** The campaign clock: how fast it runs, and from when. */
export interface CampaignClock {
  /** How many real ms a campaign minute lasts (CAMPAIGN_MINUTE_MS). */
  minuteMs: number;
  /** Real ms since the epoch where the campaign clock equals the real one. */
  anchorMs: number;
}

const MINUTE = 60_000;
const DAY_MINUTES = 1440;
/** A closed window is looked at again at least this often, in campaign minutes (DST moves it). */
const MIN_WAIT_MINUTES = 1 / 60;

const formatters = new Map<string, Intl.DateTimeFormat>();

function formatterOf(timezone: string): Intl.DateTimeFormat {
  let f = formatters.get(timezone);
  if (!f) {
    f = new Intl.DateTimeFormat('en-US', {
      timeZone: timezone,
      hourCycle: 'h23',
      hour: '2-digit',
      minute: '2-digit',
      second: '2-digit',
    });
    formatters.set(timezone, f);
  }
  return f;
}

/** Whether `timezone` is one the runtime knows (an IANA name). */
export function isTimeZone(timezone: string): boolean {
  try {
    formatterOf(timezone);
    return true;
  } catch {
    return false;
  }
}

const minutesOf = (hhmm: string) => Number(hhmm.slice(0, 2)) * 60 + Number(hhmm.slice(3, 5));

/** The minute of the local day (with its fraction) at `ms` in `timezone`. */
export function localMinuteOfDay(ms: number, timezone: string): number {
  const parts = formatterOf(timezone).formatToParts(new Date(ms));
  const part = (type: string) => Number(parts.find((p) => p.type === type)?.value ?? 0);
  return part('hour') * 60 + part('minute') + part('second') / 60 + (ms % 1000) / MINUTE;
}

/** The campaign clock's time at real time `realMs`. */
export const campaignTime = (clock: CampaignClock, realMs: number) =>
  clock.anchorMs + ((realMs - clock.anchorMs) * MINUTE) / clock.minuteMs;

/** Real ms that `minutes` campaign minutes last. */
export const realMsOf = (clock: CampaignClock, minutes: number) => Math.round(minutes * clock.minuteMs);

/**
 * At real time `realMs`: whether the window is open, and in how many real ms that changes (it
 * closes, or opens). Computed in local time, so a DST change can make the wait an hour off: the
 * workflow looks again when it wakes, so it never places a call outside the window.
 */
export function callingWindow(
  hours: CallingHours,
  clock: CampaignClock,
  realMs: number,
): { open: boolean; changesInMs: number } {
  const now = localMinuteOfDay(campaignTime(clock, realMs), hours.timezone);
  const start = minutesOf(hours.start);
  const end = minutesOf(hours.end);
  const open = start < end ? now >= start && now < end : now >= start || now < end;
  const until = ((open ? end : start) - now + DAY_MINUTES) % DAY_MINUTES;
  return { open, changesInMs: Math.max(1, realMsOf(clock, Math.max(until, MIN_WAIT_MINUTES))) };
}

// Drives the official Node Calendar client (@googleapis/calendar) against the agent-tools emulator.
// Usage: node calendar-client-check.mjs ROOT_URL TOKEN
// Prints one JSON object: {check: result} for every call, so the Java test can assert on each.
import { calendar as calendarApi } from '@googleapis/calendar';
import { OAuth2Client } from 'google-auth-library';

const [rootUrl, token] = process.argv.slice(2);
const results = {};
const auth = new OAuth2Client();
auth.setCredentials({ access_token: token });
const calendar = calendarApi({ version: 'v3', rootUrl, auth });

async function check(name, fn) {
  try {
    results[name] = { ok: true, value: await fn() };
  } catch (e) {
    results[name] = {
      ok: false,
      status: e.status ?? e.code ?? null,
      reason: e.response?.data?.error?.errors?.[0]?.reason ?? e.errors?.[0]?.reason ?? null,
      message: e.message,
    };
  }
}

const work = 'c_work.example@group.calendar.google.com';

await check('calendarList', async () => {
  const { data } = await calendar.calendarList.list();
  return data.items.map(c => ({ id: c.id, summary: c.summary, primary: c.primary ?? false, timeZone: c.timeZone }));
});

await check('eventsInRange', async () => {
  const { data } = await calendar.events.list({
    calendarId: 'primary', singleEvents: true, orderBy: 'startTime', q: 'gym',
    timeMin: '2026-03-09T00:00:00+01:00', timeMax: '2026-03-27T00:00:00+01:00',
  });
  return data.items.map(e => ({ id: e.id, summary: e.summary, start: e.start.dateTime, recurringEventId: e.recurringEventId }));
});

await check('paged', async () => {
  const ids = [];
  let pageToken;
  let pages = 0;
  let syncToken;
  do {
    const { data } = await calendar.events.list({
      // no orderBy: a list from timeMin in start order ends without a sync token, as Google's (recorded)
      calendarId: work, singleEvents: true, maxResults: 4, pageToken,
      timeMin: '2026-02-01T00:00:00Z', timeMax: '2026-03-01T00:00:00Z',
    });
    data.items.forEach(e => ids.push(e.id));
    pageToken = data.nextPageToken;
    syncToken = data.nextSyncToken;
    pages++;
  } while (pageToken);
  const changes = (await calendar.events.list({ calendarId: work, syncToken })).data;
  return { count: ids.length, distinct: new Set(ids).size, pages, changes: changes.items.length };
});

await check('getInstance', async () => {
  const series = (await calendar.events.list({ calendarId: 'primary', q: 'gym' })).data.items[0];
  const { data } = await calendar.events.get({ calendarId: 'primary', eventId: `${series.id}_20260319T180000Z` });
  return { recurrence: series.recurrence, start: data.start.dateTime, recurringEventId: data.recurringEventId, seriesId: series.id };
});

await check('instances', async () => {
  const series = (await calendar.events.list({ calendarId: 'primary', q: 'gym' })).data.items[0];
  const { data } = await calendar.events.instances({
    calendarId: 'primary', eventId: series.id, timeMin: '2026-03-01T00:00:00Z', timeMax: '2026-03-08T00:00:00Z',
  });
  return data.items.map(e => e.start.dateTime);
});

await check('freeBusy', async () => {
  const { data } = await calendar.freebusy.query({
    requestBody: {
      timeMin: '2026-03-27T00:00:00Z', timeMax: '2026-03-28T00:00:00Z',
      items: [{ id: work }, { id: 'nobody@example.com' }],
    },
  });
  return data.calendars;
});

await check('holidaysInJapanese', async () => {
  const { data } = await calendar.events.list({
    calendarId: 'ja.japanese#holiday@group.v.calendar.google.com', singleEvents: true, orderBy: 'startTime',
    timeMin: '2026-05-01T00:00:00+09:00', timeMax: '2026-05-08T00:00:00+09:00',
  });
  return data.items.map(e => `${e.start.date} ${e.summary}`);
});

await check('colors', async () => {
  const { data } = await calendar.colors.get();
  return { calendar: Object.keys(data.calendar).length, event: Object.keys(data.event).length };
});

await check('staleSyncToken', async () => (await calendar.events.list({ calendarId: work, syncToken: 'not-a-token' })).data);
await check('orderByWithoutSingleEvents', async () => (await calendar.events.list({ calendarId: 'primary', orderBy: 'startTime' })).data);
await check('vanishedCalendar', async () => (await calendar.events.list({ calendarId: 'c_former.team@group.calendar.google.com' })).data);

process.stdout.write(JSON.stringify(results));

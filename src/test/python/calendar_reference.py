"""The independent reader the real-world calendar test compares the emulator's import against: Python's
`icalendar` and `recurring_ical_events` (Debian's python3-icalendar and python3-recurring-ical-events, fetched by
the build with their dependencies; nothing here parses iCalendar by hand).

    python3 calendar_reference.py CORPUS_DIR OUT.json

For every .ics file in CORPUS_DIR (all its VCALENDAR objects, when it holds several) this writes, under the file's name, the occurrences the file holds in a window
that covers all its events: {"zone", "time_min", "time_max", "events": [{"summary", "start", "all_day"}]}, or
{"error": "..."} when Python cannot read the file either. What the rules are (the same the emulator documents):
- the calendar's zone is the first VCALENDAR's X-WR-TIMEZONE, else UTC; a floating time (no TZID, no Z) is a wall time in that zone;
- series are expanded with their RRULE, RDATE, EXDATE and RECURRENCE-ID exceptions; cancelled occurrences and
  events without a DTSTART are left out (Calendar does not list them);
- the window starts at the day of the earliest DTSTART in the file and ends a day after the latest one, and at
  least a year after its start, so that series show a year of instances;
- a start is RFC 3339 with its offset for a timed occurrence, yyyy-mm-dd for an all-day one; so is the end, which is
  DTEND, else DTSTART + DURATION, else (RFC 5545 section 3.6.1) the start for a timed event and the next day for an
  all-day one (recurring_ical_events 2.0.1 gives the start for both).
"""
import datetime
import json
import os
import sys
import zoneinfo

import icalendar
import recurring_ical_events


def zone_of(cal):
    name = cal.get("X-WR-TIMEZONE")
    if name:
        try:
            return zoneinfo.ZoneInfo(str(name))
        except (zoneinfo.ZoneInfoNotFoundError, ValueError):
            pass
    return datetime.timezone.utc


def as_datetime(value, zone):
    """A DTSTART value as an aware datetime (dates at the start of their day in the calendar's zone)."""
    if isinstance(value, datetime.datetime):
        return value if value.tzinfo else value.replace(tzinfo=zone)
    return datetime.datetime(value.year, value.month, value.day, tzinfo=zone)


def window(cals, zone):
    starts = [as_datetime(e["DTSTART"].dt, zone) for cal in cals for e in cal.walk("VEVENT") if e.get("DTSTART") is not None]
    if not starts:
        return None
    first = min(starts).astimezone(zone)
    first = datetime.datetime(first.year, first.month, first.day, tzinfo=zone)
    last = max(starts) + datetime.timedelta(days=1)
    return first, max(last, first + datetime.timedelta(days=366))


def occurrence(event, zone):
    start = event["DTSTART"].dt
    end = event["DTEND"].dt if event.get("DTEND") is not None else start
    summary = str(event.get("SUMMARY", "")) or None
    if not isinstance(start, datetime.datetime):
        if end == start:
            end = start + datetime.timedelta(days=1)
        return {"summary": summary, "start": start.isoformat(), "end": end.isoformat(), "all_day": True}
    if start.tzinfo is None:
        start = start.replace(tzinfo=zone)
    if isinstance(end, datetime.datetime) and end.tzinfo is None:
        end = end.replace(tzinfo=zone)
    return {"summary": summary, "start": start.isoformat(), "end": end.isoformat(), "all_day": False}


def read(path):
    with open(path, "rb") as f:
        cals = icalendar.Calendar.from_ical(f.read(), multiple=True)
    zone = zone_of(cals[0])
    span = window(cals, zone)
    if span is None:
        return {"zone": str(zone), "events": []}
    events = []
    for cal in cals:
        for e in recurring_ical_events.of(cal).between(span[0], span[1]):
            if str(e.get("STATUS", "")).upper() == "CANCELLED":
                continue
            events.append(occurrence(e, zone))
    events.sort(key=lambda o: (o["start"], o["summary"] or ""))
    return {"zone": str(zone), "time_min": span[0].isoformat(), "time_max": span[1].isoformat(), "events": events}


def main(corpus, out):
    result = {}
    for name in sorted(os.listdir(corpus)):
        if not name.endswith(".ics"):
            continue
        try:
            result[name] = read(os.path.join(corpus, name))
        except Exception as e:  # a file Python cannot read either: said, not fatal
            result[name] = {"error": f"{type(e).__name__}: {e}"}
    with open(out, "w", encoding="utf-8") as f:
        json.dump(result, f, indent=1, ensure_ascii=False)


if __name__ == "__main__":
    main(sys.argv[1], sys.argv[2])

/**
 * The emulated Calendar v3 API (its read methods): the user's calendars and events, recurring series expanded by
 * ical4j, the seeded calendars and the import of .ics files, the colour palette, and the resource that answers
 * calendarList, calendars, events, freeBusy and colors. Internal to the emulator, not API: its few public types are
 * for {@code Emulator} (which loads the calendars) and the front (which routes to {@code CalendarApi}).
 */
package dev.agenttools.emulator.calendar;

/**
 * The Calendar tools (list_calendars, list_events, get_event, free_busy), internal:
 * {@link dev.agenttools.calendar.CalendarTools} registers them on a registry; only
 * {@link dev.agenttools.calendar.CalendarSettings} is published. Imports {@code tool} and {@code google}.
 */
package dev.agenttools.calendar;

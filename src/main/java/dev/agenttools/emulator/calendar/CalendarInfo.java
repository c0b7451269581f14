package dev.agenttools.emulator.calendar;

import java.time.ZoneId;
import java.util.Objects;

/**
 * One calendar in the user's calendar list, with what calendarList.list says of it.
 *
 * @param id         the calendar id: the user's address for the primary one, an address-like id otherwise
 * @param accessRole the user's role on it: freeBusyReader, reader, writer or owner
 * @param colorId    a key of colors.get's calendar palette
 * @param selected   shown in the user's calendar view
 * @param hidden     hidden from the list (shown only with showHidden)
 * @param vanished   still in the list but deleted by its owner: its events answer 404, as Google's do
 */
record CalendarInfo(String id, String summary, String description, ZoneId timeZone, String accessRole, boolean primary,
                    String colorId, boolean selected, boolean hidden, boolean vanished) {
    CalendarInfo {
        Objects.requireNonNull(id, "id");
        Objects.requireNonNull(timeZone, "timeZone");
        if (!CalendarApi.ROLES.contains(accessRole)) {
            throw new IllegalArgumentException("calendar " + id + ": accessRole must be one of " + CalendarApi.ROLES + ", got " + accessRole);
        }
    }

    /** Whether the user may read its events (a free/busy reader sees only busy times). */
    boolean readable() {
        return CalendarApi.ROLES.indexOf(accessRole) >= CalendarApi.ROLES.indexOf("reader");
    }
}

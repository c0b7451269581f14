package dev.agenttools.emulator.gmail;

import jakarta.mail.internet.MailDateFormat;

import java.text.ParseException;
import java.time.DateTimeException;
import java.time.LocalDate;
import java.time.LocalTime;
import java.util.Locale;
import java.util.OptionalLong;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * A Date header as epoch milliseconds, for filing imported mail by date as Gmail does. Angus Mail's lenient
 * MailDateFormat reads what real mail writes (named zones, comments, no weekday) but also rolls an impossible
 * hour 59 or 31 February over into another day; such a header is no date at all here, so the message is filed
 * by its arrival time instead.
 */
final class DateHeader {
    private static final Pattern FIELDS = Pattern.compile(
            "(\\d{1,2})[\\s-]+([A-Za-z]{3})[A-Za-z]*\\.?[\\s-]+(\\d{2,4})\\s+(\\d{1,2}):(\\d{1,2})(?::(\\d{1,2}))?");
    private static final String MONTHS = "janfebmaraprmayjunjulaugsepoctnovdec";

    private DateHeader() {
    }

    static OptionalLong millis(String header) {
        if (header == null || header.isBlank()) {
            return OptionalLong.empty();
        }
        Matcher m = FIELDS.matcher(header);
        if (!m.find() || !possible(m)) {
            return OptionalLong.empty();
        }
        try {
            return OptionalLong.of(new MailDateFormat().parse(header.strip()).getTime());
        } catch (ParseException | RuntimeException e) {
            return OptionalLong.empty();
        }
    }

    private static boolean possible(Matcher m) {
        int month = MONTHS.indexOf(m.group(2).toLowerCase(Locale.ROOT));
        if (month < 0 || month % 3 != 0) {
            return false;
        }
        int year = Integer.parseInt(m.group(3));
        year += m.group(3).length() == 2 ? (year < 50 ? 2000 : 1900) : m.group(3).length() == 3 ? 1900 : 0;
        try {
            LocalDate.of(year, month / 3 + 1, Integer.parseInt(m.group(1)));
            LocalTime.of(Integer.parseInt(m.group(4)), Integer.parseInt(m.group(5)),
                    m.group(6) == null ? 0 : Integer.parseInt(m.group(6)));
            return true;
        } catch (DateTimeException impossible) {
            return false;
        }
    }
}

package dev.agenttools.emulator.calendar;

import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.agenttools.emulator.api.Json;

import java.time.Instant;
import java.util.LinkedHashMap;
import java.util.Map;

/**
 * Calendar's colour palettes (colors.get): 24 calendar colours and 11 event colours, each a background and a
 * foreground. The values are Google's long-standing classic palette as published in API answers and client
 * samples; not checked against a live account (these machines cannot reach Google).
 */
final class CalendarColors {
    /** One palette entry. */
    record Color(String background, String foreground) {
    }

    private static final String FOREGROUND = "#1d1d1d";
    private static final String[] CALENDAR = {"#ac725e", "#d06b64", "#f83a22", "#fa573c", "#ff7537", "#ffad46", "#42d692",
            "#16a765", "#7bd148", "#b3dc6c", "#fbe983", "#fad165", "#92e1c0", "#9fe1e7", "#9fc6e7", "#4986e7", "#9a9cff",
            "#b99aff", "#c2c2c2", "#cabdbf", "#cca6ac", "#f691b2", "#cd74e6", "#a47ae2"};
    private static final String[] EVENT = {"#a4bdfc", "#7ae7bf", "#dbadff", "#ff887c", "#fbd75b", "#ffb878", "#46d6db",
            "#e1e1e1", "#5484ed", "#51b749", "#dc2127"};

    private CalendarColors() {
    }

    /** The calendar colour with this id ("1".."24"). */
    static Color calendar(String id) {
        int i = Integer.parseInt(id);
        if (i < 1 || i > CALENDAR.length) {
            throw new IllegalArgumentException("calendar colorId must be 1.." + CALENDAR.length + ", got " + id);
        }
        return new Color(CALENDAR[i - 1], FOREGROUND);
    }

    /** The colors.get answer. */
    static ObjectNode all(Instant updated) {
        ObjectNode n = Json.MAPPER.createObjectNode();
        n.put("kind", "calendar#colors");
        n.put("updated", CalendarJson.stamp(updated));
        n.set("calendar", palette(CALENDAR));
        n.set("event", palette(EVENT));
        return n;
    }

    private static ObjectNode palette(String[] backgrounds) {
        Map<String, Color> colors = new LinkedHashMap<>();
        for (int i = 0; i < backgrounds.length; i++) {
            colors.put(Integer.toString(i + 1), new Color(backgrounds[i], FOREGROUND));
        }
        ObjectNode n = Json.MAPPER.createObjectNode();
        colors.forEach((id, c) -> n.putObject(id).put("background", c.background()).put("foreground", c.foreground()));
        return n;
    }
}

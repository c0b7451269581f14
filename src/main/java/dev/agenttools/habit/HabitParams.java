package dev.agenttools.habit;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.agenttools.tool.Backend;
import dev.agenttools.tool.Json;
import dev.agenttools.tool.Params;
import dev.agenttools.tool.ToolException;
import dev.agenttools.tool.ToolResult;

import java.time.DateTimeException;
import java.time.DayOfWeek;
import java.time.LocalDate;
import java.time.ZoneId;
import java.time.format.DateTimeParseException;
import java.util.EnumSet;
import java.util.List;
import java.util.Set;

import static dev.agenttools.habit.HabitTools.MAX_AMOUNT;
import static dev.agenttools.habit.HabitTools.MIN_NONZERO_AMOUNT;

/** What the Habit tools read from their params and how they answer: one place, so that each tool reads them alike. */
final class HabitParams {
    private HabitParams() {
    }

    /** {@code s}, or its first 60 code points and "..." (never half of a character). */
    static String clip(String s) {
        return Params.codePoints(s) > 60 ? s.substring(0, s.offsetByCodePoints(0, 60)) + "..." : s;
    }

    static ObjectNode schema(String description, ObjectNode properties, String... required) {
        ObjectNode schema = Json.object();
        schema.put("type", "object");
        schema.put("description", description);
        schema.set("properties", properties);
        ArrayNode r = schema.putArray("required");
        for (String name : required) {
            r.add(name);
        }
        schema.put("additionalProperties", false);
        return schema;
    }

    static final Set<String> DEFINITION = Set.of("name", "schedule", "days", "times_per_week", "target_amount",
            "target_unit", "time_zone");

    static void describeDefinition(ObjectNode p, boolean update) {
        p.putObject("name").put("type", "string").put("minLength", 1).put("maxLength", Habit.MAX_NAME_CHARS)
                .put("description", "What the habit is, as the user says it (\"Running\", \"Read 20 pages\"): unique per user, "
                        + "whatever its case; one line, without control, bidi or zero-width characters, and not of an id's "
                        + "form (hab_ and 16 hex digits)." + (update ? " Default: unchanged." : ""));
        ObjectNode kind = p.putObject("schedule").put("type", "string");
        kind.putArray("enum").add("daily").add("weekdays").add("times_per_week");
        kind.put("description", "When it is due: every day (daily), on given days of the week (weekdays, with days), or "
                + "N days in each week, any days (times_per_week, with times_per_week)." + (update ? " Default: unchanged." : " Default: daily."));
        ObjectNode days = p.putObject("days").put("type", "array").put("minItems", 1).put("maxItems", 7).put("uniqueItems", true)
                .put("description", "For schedule weekdays: the days it is due, such as [\"mon\", \"wed\", \"fri\"].");
        days.putObject("items").put("type", "string").putArray("enum").add("mon").add("tue").add("wed").add("thu").add("fri")
                .add("sat").add("sun");
        p.putObject("times_per_week").put("type", "integer").put("minimum", 1).put("maximum", 7)
                .put("description", "For schedule times_per_week: how many days of each week (Monday to Sunday).");
        ObjectNode target = p.putObject("target_amount");
        if (update) {
            target.putArray("type").add("number").add("null");
        } else {
            target.put("type", "number");
        }
        target.put("minimum", 0).put("maximum", MAX_AMOUNT).put("description", "One day's target, such as 30 (with target_unit minutes); 0, or at least "
                        + MIN_NONZERO_AMOUNT + "." + (update ? " null clears it." : ""));
        ObjectNode unit = p.putObject("target_unit");
        if (update) {
            unit.putArray("type").add("string").add("null");
        } else {
            unit.put("type", "string");
        }
        unit.put("minLength", 1).put("maxLength", Habit.MAX_UNIT_CHARS)
                .put("description", "The target's unit, such as minutes, pages, km." + (update ? " null clears it." : ""));
        p.putObject("time_zone").put("type", "string").put("description", "The IANA time zone its days are counted in, "
                + "such as Asia/Tokyo (a log at 23:30 there is that day). " + (update
                ? "Set it when the user moves: days already logged keep their dates and streaks." : "Default: the server's zone."));
    }

    static Schedule schedule(Params p, JsonNode params, Schedule current) {
        boolean any = params.has("schedule") || params.has("days") || params.has("times_per_week");
        if (!any && current != null) {
            return current;
        }
        String kind = p.choice("schedule", List.of("daily", "weekdays", "times_per_week"),
                params.has("days") ? "weekdays" : params.has("times_per_week") ? "times_per_week"
                        : current != null ? current.kind().wireName() : "daily");
        return switch (kind) {
            case "daily" -> {
                if (params.has("days") || params.has("times_per_week")) {
                    throw ToolException.invalidArgument("schedule daily takes neither days nor times_per_week: leave them out");
                }
                yield Schedule.DAILY;
            }
            case "weekdays" -> {
                if (params.has("times_per_week")) {
                    throw ToolException.invalidArgument("times_per_week goes with schedule times_per_week, not weekdays: leave it out");
                }
                yield Schedule.weekdays(days(params.get("days")));
            }
            default -> {
                if (params.has("days")) {
                    throw ToolException.invalidArgument("days goes with schedule weekdays, not times_per_week: leave it out");
                }
                if (!params.has("times_per_week")) {
                    throw ToolException.invalidArgument("times_per_week is required with schedule times_per_week (1..7)");
                }
                yield Schedule.timesPerWeek(p.integer("times_per_week", 1, 7, 1));
            }
        };
    }

    static Set<DayOfWeek> days(JsonNode v) {
        if (v == null || v.isNull() || !v.isArray() || v.isEmpty() || v.size() > 7) {
            throw ToolException.invalidArgument("days must be a list of 1 to 7 weekdays such as [\"mon\", \"wed\", \"fri\"], got "
                    + (v == null ? "none" : clip(v.toString())));
        }
        Set<DayOfWeek> days = EnumSet.noneOf(DayOfWeek.class);
        for (JsonNode d : v) {
            DayOfWeek day = d.isTextual() ? Schedule.day(d.asText()) : null;
            if (day == null) {
                throw ToolException.invalidArgument("days must hold weekdays: mon, tue, wed, thu, fri, sat or sun, got " + clip(d.toString()));
            }
            days.add(day);
        }
        return days;
    }

    static String name(Params p, String current) {
        String name = Params.name("name", current == null ? p.requiredString("name") : p.string("name", current),
                Habit.MAX_NAME_CHARS);
        if (Habit.looksLikeId(name)) {
            throw ToolException.invalidArgument("name \"" + name + "\" has the form of a habit id (hab_ and 16 hex digits),"
                    + " which the habit param would read as an id: name it otherwise");
        }
        return name;
    }

    static Double amount(JsonNode params, String field, Double current) {
        if (!params.has(field)) {
            return current;
        }
        JsonNode v = params.get(field);
        if (v.isNull()) {
            return null;
        }
        if (!v.isNumber() || !Double.isFinite(v.asDouble()) || v.asDouble() < 0 || v.asDouble() > MAX_AMOUNT) {
            throw ToolException.invalidArgument(field + " must be a number 0.." + (long) MAX_AMOUNT + ", got " + clip(v.toString()));
        }
        // DynamoDB keeps no number nearer 0 than 1e-130: refused here alike for both stores, with room to spare
        if (v.asDouble() != 0 && v.asDouble() < MIN_NONZERO_AMOUNT) {
            throw ToolException.invalidArgument(field + " must be 0 or at least " + MIN_NONZERO_AMOUNT + ", got " + clip(v.toString()));
        }
        return v.asDouble();
    }

    static String unit(Params p, JsonNode params, String current) {
        if (!params.has("target_unit")) {
            return current;
        }
        String unit = p.string("target_unit", null);
        return unit == null ? null : Params.name("target_unit", unit, Habit.MAX_UNIT_CHARS);
    }

    static ZoneId zone(Params p, ZoneId current) {
        String z = p.string("time_zone", null);
        if (z == null) {
            return current;
        }
        try {
            if (ZoneId.getAvailableZoneIds().contains(z) || z.equals("UTC")) {
                return ZoneId.of(z);
            }
        } catch (DateTimeException e) {
            // said below
        }
        throw ToolException.invalidArgument("time_zone must be an IANA time zone such as Europe/Paris or Asia/Tokyo, got \""
                + clip(z) + "\"");
    }

    static ToolResult answer(Object data, int items) {
        return new ToolResult(Json.tree(data), Backend.STORE, items);
    }

    static LocalDate date(Params p, String field, LocalDate fallback) {
        String v = p.string(field, null);
        if (v == null) {
            return fallback;
        }
        try {
            return LocalDate.parse(v.strip());
        } catch (DateTimeParseException e) {
            throw ToolException.invalidArgument(field + " must be a day as YYYY-MM-DD, such as 2026-12-01, got \"" + clip(v) + "\"");
        }
    }
}

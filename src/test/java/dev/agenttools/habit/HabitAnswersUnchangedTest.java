package dev.agenttools.habit;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.agenttools.Tools;
import dev.agenttools.tool.Json;
import dev.agenttools.tool.ToolProtocol;
import dev.agenttools.tool.ToolRegistry;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Instant;
import java.time.ZoneId;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Every Habit tool's wire answer, byte for byte as recorded in {@code src/test/resources/answers/habit.jsonl}, as
 * {@code dev.agenttools.AnswersUnchangedTest} keeps the Gmail and Calendar tools': a refactoring that changes what a
 * caller reads fails here. The clock is the test's (the days of a streak move with it), and the habits' random ids are
 * named in order of appearance ({@code hab_1}, ...), so the answers do not depend on when or where the test runs.
 * Every schedule, a target, logs out of order, a retried log, a day undone, a streak across a zone move, archive and
 * restore, the history, and the errors callers read.
 *
 * <p>To record anew after a deliberate change of an answer: {@code -Danswers.record=true}, then review the diff.
 */
class HabitAnswersUnchangedTest {
    private static final Path RECORDED = Path.of("src/test/resources/answers/habit.jsonl");
    private static final Pattern ID = Pattern.compile("hab_[0-9a-f]{16}");

    @TempDir
    Path dir;
    private final SetClock clock = new SetClock(Instant.parse("2026-11-02T08:00:00Z"), ZoneId.of("Europe/Paris"));
    /** The store's random ids, by the name each is given in the record. */
    private final Map<String, String> ids = new LinkedHashMap<>();

    /** One exchange as recorded: the request, and the answer without its duration and with the ids named. */
    private String exchange(ToolProtocol p, String command, String params) {
        String request = "{\"command\":\"" + command + "\",\"params\":" + unname(params) + "}";
        ObjectNode answer = p.answer(request).json();
        if (answer.get("meta") instanceof ObjectNode meta) {
            meta.remove("duration_ms");
        }
        return "[" + clock.now + "] " + "{\"command\":\"" + command + "\",\"params\":" + params + "} => " + name(Json.write(answer));
    }

    /** The answer with each store id replaced by its name in the record. */
    private String name(String answer) {
        Matcher m = ID.matcher(answer);
        StringBuilder out = new StringBuilder();
        while (m.find()) {
            String id = m.group();
            String name = ids.entrySet().stream().filter(e -> e.getValue().equals(id)).map(Map.Entry::getKey).findFirst()
                    .orElse(null);
            if (name == null) {
                name = "hab_" + (ids.size() + 1);
                ids.put(name, id);
            }
            m.appendReplacement(out, name);
        }
        return m.appendTail(out).toString();
    }

    /** A request naming a habit as the record does ({@code hab_2}) with its id in the store. */
    private String unname(String params) {
        String out = params;
        for (Map.Entry<String, String> e : ids.entrySet()) {
            out = out.replace("\"" + e.getKey() + "\"", "\"" + e.getValue() + "\"");
        }
        return out;
    }

    private List<String> exchanges() {
        List<String> out = new ArrayList<>();
        try (ToolRegistry registry = HabitTools.register(ToolRegistry.builder(),
                HabitSettings.at(dir.resolve("habits.db")), clock).build()) {
            ToolProtocol p = new ToolProtocol(registry, Tools.SHORT_NAMES);
            out.add(exchange(p, "tools.list", "{}"));
            // Monday 2 November 2026 in Paris: one habit of each schedule, one with a target
            out.add(exchange(p, HabitTools.CREATE, "{\"name\":\"Running\",\"schedule\":\"weekdays\",\"days\":[\"mon\",\"wed\",\"fri\"],"
                    + "\"target_amount\":30,\"target_unit\":\"minutes\"}"));
            clock.now = clock.now.plusSeconds(60); // habits are listed in the order they were made: ties go by id, random
            out.add(exchange(p, HabitTools.CREATE, "{\"name\":\"Read 20 pages\"}"));
            clock.now = clock.now.plusSeconds(60);
            out.add(exchange(p, HabitTools.CREATE, "{\"name\":\"Swim\",\"schedule\":\"times_per_week\",\"times_per_week\":2,"
                    + "\"time_zone\":\"Asia/Tokyo\"}"));
            // ten days later (Thursday the 12th), two weeks of logs, some late, one retried, one under the target, one
            // day undone
            clock.now = Instant.parse("2026-11-12T08:00:00Z");
            for (String day : List.of("2026-11-02", "2026-11-04", "2026-11-06", "2026-11-09")) {
                out.add(exchange(p, HabitTools.LOG, "{\"habit\":\"running\",\"date\":\"" + day + "\",\"amount\":35}"));
            }
            out.add(exchange(p, HabitTools.LOG, "{\"habit\":\"Running\",\"date\":\"2026-11-11\",\"amount\":12,\"note\":\"knee\"}"));
            for (int day = 2; day <= 12; day++) {
                if (day != 7) {
                    out.add(exchange(p, HabitTools.LOG, "{\"habit\":\"hab_2\",\"date\":\"2026-11-" + String.format("%02d", day) + "\"}"));
                }
            }
            out.add(exchange(p, HabitTools.LOG, "{\"habit\":\"hab_2\",\"date\":\"2026-11-12\"}"));
            out.add(exchange(p, HabitTools.LOG, "{\"habit\":\"hab_2\",\"date\":\"2026-11-10\",\"done\":false}"));
            clock.now = Instant.parse("2026-11-12T14:30:00Z"); // 23:30 in Tokyo: still the 12th there
            out.add(exchange(p, HabitTools.LOG, "{\"habit\":\"Swim\"}"));
            clock.now = Instant.parse("2026-11-12T15:30:00Z"); // 00:30 on the 13th in Tokyo
            out.add(exchange(p, HabitTools.LOG, "{\"habit\":\"Swim\",\"note\":\"pool\"}"));
            out.add(exchange(p, HabitTools.LIST, "{}"));
            out.add(exchange(p, HabitTools.HISTORY, "{\"habit\":\"Running\",\"from\":\"2026-11-01\",\"to\":\"2026-11-14\"}"));
            out.add(exchange(p, HabitTools.HISTORY, "{\"habit\":\"hab_2\"}"));
            // changed, moved, archived, listed, restored
            out.add(exchange(p, HabitTools.UPDATE, "{\"habit\":\"Running\",\"target_amount\":null,\"target_unit\":null,"
                    + "\"schedule\":\"daily\"}"));
            out.add(exchange(p, HabitTools.UPDATE, "{\"habit\":\"hab_2\",\"name\":\"Read 30 pages\",\"time_zone\":\"America/New_York\"}"));
            out.add(exchange(p, HabitTools.ARCHIVE, "{\"habit\":\"Swim\"}"));
            out.add(exchange(p, HabitTools.LIST, "{}"));
            out.add(exchange(p, HabitTools.LIST, "{\"include_archived\":true}"));
            out.add(exchange(p, HabitTools.RESTORE, "{\"habit\":\"swim\"}"));
            // errors as callers read them
            for (String[] bad : new String[][] {{HabitTools.CREATE, "{\"name\":\"running\"}"},
                    {HabitTools.CREATE, "{\"name\":\"\"}"},
                    {HabitTools.CREATE, "{\"name\":\"Yoga\",\"schedule\":\"daily\",\"days\":[\"mon\"]}"},
                    {HabitTools.CREATE, "{\"name\":\"Yoga\",\"schedule\":\"times_per_week\"}"},
                    {HabitTools.CREATE, "{\"name\":\"Yoga\",\"time_zone\":\"Mars/Olympus\"}"},
                    {HabitTools.LOG, "{\"habit\":\"Nope\"}"},
                    {HabitTools.LOG, "{\"habit\":\"Running\",\"date\":\"2026-13-01\"}"},
                    {HabitTools.LOG, "{\"habit\":\"Running\",\"amount\":-1}"},
                    {HabitTools.HISTORY, "{\"habit\":\"Running\",\"from\":\"2026-11-14\",\"to\":\"2026-11-01\"}"},
                    {HabitTools.LIST, "{\"include_archived\":\"yes\"}"},
                    {HabitTools.UPDATE, "{\"habit\":\"Running\",\"colour\":\"red\"}"}}) {
                out.add(exchange(p, bad[0], bad[1]));
            }
        }
        return out;
    }

    @Test
    void everyHabitToolAnswersAsRecorded() throws IOException {
        List<String> now = exchanges();
        if (Boolean.getBoolean("answers.record")) {
            Files.write(RECORDED, now, StandardCharsets.UTF_8);
        }
        List<String> recorded = Files.readAllLines(RECORDED, StandardCharsets.UTF_8);
        assertThat(now).hasSameSizeAs(recorded);
        for (int i = 0; i < now.size(); i++) {
            assertThat(now.get(i)).as("exchange %d", i + 1).isEqualTo(recorded.get(i));
        }
        // the record holds answers, not only errors: a habit listed with its streak
        assertThat(String.join("\n", recorded)).contains("\"current_streak\"").contains("hab_3");
    }
}

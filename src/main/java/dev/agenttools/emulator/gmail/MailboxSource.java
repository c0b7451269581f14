package dev.agenttools.emulator.gmail;

import jakarta.mail.MessagingException;
import jakarta.mail.internet.InternetHeaders;

import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Instant;
import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.function.Consumer;
import java.util.stream.Stream;

/**
 * Where a mailbox comes from: the seeded generator, an mbox file (what Google Takeout exports, with its
 * X-Gmail-Labels and X-GM-THRID headers), or a folder of .eml files.
 */
public final class MailboxSource {
    /** Takeout's label names for Gmail's system labels. */
    private static final Map<String, String> TAKEOUT_LABELS = Map.ofEntries(
            Map.entry("inbox", LabelCatalog.INBOX), Map.entry("unread", LabelCatalog.UNREAD),
            Map.entry("starred", LabelCatalog.STARRED), Map.entry("important", LabelCatalog.IMPORTANT),
            Map.entry("sent", LabelCatalog.SENT), Map.entry("spam", LabelCatalog.SPAM),
            Map.entry("trash", LabelCatalog.TRASH), Map.entry("drafts", LabelCatalog.DRAFT),
            Map.entry("draft", LabelCatalog.DRAFT), Map.entry("chat", "CHAT"),
            Map.entry("category personal", "CATEGORY_PERSONAL"), Map.entry("category social", "CATEGORY_SOCIAL"),
            Map.entry("category promotions", "CATEGORY_PROMOTIONS"), Map.entry("category updates", "CATEGORY_UPDATES"),
            Map.entry("category forums", "CATEGORY_FORUMS"));
    private static final Set<String> TAKEOUT_IGNORED = Set.of("opened", "archived");

    private MailboxSource() {
    }

    /**
     * The mailbox of {@code userEmail} that {@code source} names: {@code seed} for {@code seedMessages} generated from
     * {@code seed} (dated up to {@code anchor}), else an mbox file or a folder of .eml files. The lines naming skipped
     * messages go to {@code warnings}.
     *
     * @throws IllegalArgumentException when the path is neither 'seed', a file nor a folder, holds no mail, or holds
     *                                  only mail that cannot be read
     */
    public static Mailbox load(String source, String userEmail, long seed, int seedMessages, Instant anchor,
                               Consumer<String> warnings) {
        if (source.equals("seed")) {
            return Mailbox.load(userEmail, SeedMailbox.generate(seed, seedMessages, anchor, userEmail), MimeParser::parse,
                    warnings);
        }
        Path path = Path.of(source);
        List<MailInput> inputs;
        if (Files.isDirectory(path)) {
            inputs = emlFolder(path, warnings);
        } else if (Files.isRegularFile(path)) {
            inputs = mbox(path);
        } else {
            throw new IllegalArgumentException("mailbox must be 'seed', an mbox file or a folder of .eml files; "
                    + path.toAbsolutePath() + " does not exist");
        }
        Mailbox box = Mailbox.load(userEmail, inputs, MimeParser::parse, warnings);
        if (box.size() == 0) {
            // serving an empty mailbox would look like a bug in the client rather than in the mail
            throw new IllegalArgumentException("mailbox " + path.toAbsolutePath()
                    + ": none of its messages could be read (each skipped one is named above)");
        }
        return box;
    }

    /**
     * The seeded mailbox of one more user, user {@code number} (2 or more): {@code seedMessages} generated from
     * {@code seed}, without the three large messages the first user's mailbox has (1.1 MB of HTML, a 1.5 MB attachment:
     * a thousand users could not hold them). Its mail is the user's alone, as a real mailbox's is: every subject ends
     * with {@code [user<number>]} and the number is in every id, so a caller shown another user's mail can tell by
     * either (a scale test's check of answers relies on it).
     */
    public static Mailbox seeded(String userEmail, int number, long seed, int seedMessages, Instant anchor) {
        String tag = "[user" + number + "]";
        return Mailbox.load(userEmail, SeedMailbox.generate(seed, seedMessages, anchor, userEmail, tag),
                MimeParser::parse, System.err::println, number);
    }

    /** The folder's .eml files, any depth, in path order; a file that cannot be read is named and skipped. */
    static List<MailInput> emlFolder(Path folder, Consumer<String> warnings) {
        List<Path> files;
        try (Stream<Path> walk = Files.walk(folder)) {
            files = walk.filter(f -> f.toString().toLowerCase(Locale.ROOT).endsWith(".eml")).sorted().toList();
        } catch (IOException e) {
            throw new UncheckedIOException("cannot list the .eml files in " + folder.toAbsolutePath() + ": " + e, e);
        } catch (UncheckedIOException e) {
            throw new UncheckedIOException("cannot list the .eml files in " + folder.toAbsolutePath() + ": "
                    + e.getCause(), e.getCause());
        }
        if (files.isEmpty()) {
            throw new IllegalArgumentException("mailbox folder " + folder.toAbsolutePath() + " holds no .eml files");
        }
        List<MailInput> inputs = new ArrayList<>();
        for (Path file : files) {
            String origin = folder.relativize(file).toString();
            try {
                inputs.add(input(Files.readAllBytes(file), Files.getLastModifiedTime(file).toMillis(), origin));
            } catch (IOException e) {
                warnings.accept("emulator: skipped " + origin + ": cannot read the file: " + e);
            }
        }
        return inputs;
    }

    /**
     * Splits an mbox file on its "From " separator lines and undoes mboxrd quoting ({@code >From } back to
     * {@code From }). Written by hand: it is a line scan, and Angus Mail has no mbox reader.
     */
    static List<MailInput> mbox(Path file) {
        byte[] all;
        try {
            all = Files.readAllBytes(file);
        } catch (IOException e) {
            throw new UncheckedIOException("cannot read mbox " + file + ": " + e.getMessage(), e);
        }
        long fallbackDate = file.toFile().lastModified();
        List<MailInput> inputs = new ArrayList<>();
        ByteArrayOutputStream current = null;
        String origin = null;
        int pos = 0;
        boolean previousBlank = true;
        while (pos < all.length) {
            int end = pos;
            while (end < all.length && all[end] != '\n') {
                end++;
            }
            int next = Math.min(all.length, end + 1);
            boolean separator = previousBlank && startsWith(all, pos, "From ");
            if (separator) {
                if (current != null && current.size() > 0) {
                    inputs.add(input(current.toByteArray(), fallbackDate, origin));
                }
                current = new ByteArrayOutputStream();
                origin = file + " message " + (inputs.size() + 1) + " at byte " + pos;
            } else if (current != null) {
                int from = pos;
                if (all[pos] == '>') {
                    int q = pos;
                    while (q < end && all[q] == '>') {
                        q++;
                    }
                    if (startsWith(all, q, "From ")) {
                        from = pos + 1;
                    }
                }
                current.write(all, from, next - from);
            }
            int contentEnd = end > pos && all[end - 1] == '\r' ? end - 1 : end;
            previousBlank = contentEnd == pos;
            pos = next;
        }
        if (current != null && current.size() > 0) {
            inputs.add(input(current.toByteArray(), fallbackDate, origin));
        }
        if (inputs.isEmpty()) {
            throw new IllegalArgumentException("mbox " + file.toAbsolutePath() + " holds no messages (no 'From ' lines)");
        }
        return inputs;
    }

    private static boolean startsWith(byte[] data, int pos, String prefix) {
        if (pos + prefix.length() > data.length) {
            return false;
        }
        for (int i = 0; i < prefix.length(); i++) {
            if (data[pos + i] != prefix.charAt(i)) {
                return false;
            }
        }
        return true;
    }

    /** The message with what its headers say of labels, thread and date; where they are unreadable, the defaults. */
    private static MailInput input(byte[] raw, long fallbackDate, String origin) {
        InternetHeaders headers;
        try {
            headers = new InternetHeaders(new ByteArrayInputStream(raw));
        } catch (MessagingException | RuntimeException e) {
            // the full parse decides whether the message loads at all, and names it if not
            return new MailInput(raw, Set.of(LabelCatalog.INBOX), fallbackDate, null, origin);
        }
        // an undated or impossibly dated message is filed by arrival, as Gmail files it
        long date = DateHeader.millis(headers.getHeader("Date", null)).orElse(fallbackDate);
        String labelsHeader = headers.getHeader("X-Gmail-Labels", null);
        String thread = headers.getHeader("X-GM-THRID", null);
        return new MailInput(raw, labels(labelsHeader), date, thread == null ? null : "takeout:" + thread.strip(), origin);
    }

    /** Takeout's X-Gmail-Labels ({@code Inbox,Unread,"Work, 2024",Category Updates}) as label ids and user label names. */
    static Set<String> labels(String header) {
        if (header == null || header.isBlank()) {
            return Set.of(LabelCatalog.INBOX);
        }
        Set<String> labels = new LinkedHashSet<>();
        for (String raw : splitLabels(header)) {
            String name = raw.strip();
            String key = name.toLowerCase(Locale.ROOT);
            if (name.isEmpty() || TAKEOUT_IGNORED.contains(key)) {
                continue;
            }
            String system = TAKEOUT_LABELS.get(key);
            labels.add(system != null ? system : "user:" + name);
        }
        return labels;
    }

    private static List<String> splitLabels(String header) {
        List<String> out = new ArrayList<>();
        StringBuilder cur = new StringBuilder();
        boolean quoted = false;
        for (char c : header.toCharArray()) {
            if (c == '"') {
                quoted = !quoted;
            } else if (c == ',' && !quoted) {
                out.add(cur.toString());
                cur.setLength(0);
            } else {
                cur.append(c);
            }
        }
        out.add(cur.toString());
        return out;
    }
}

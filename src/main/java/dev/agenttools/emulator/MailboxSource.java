package dev.agenttools.emulator;

import jakarta.mail.MessagingException;
import jakarta.mail.internet.InternetHeaders;

import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.stream.Stream;

/**
 * Where a mailbox comes from: the seeded generator, an mbox file (what Google Takeout exports, with its
 * X-Gmail-Labels and X-GM-THRID headers), or a folder of .eml files.
 */
final class MailboxSource {
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

    static Mailbox load(EmulatorConfig config) {
        String source = config.mailbox();
        if (source.equals("seed")) {
            return Mailbox.load(config.userEmail(), SeedMailbox.generate(config.seed(), config.seedMessages(),
                    config.anchor(), config.userEmail()));
        }
        Path path = Path.of(source);
        if (Files.isDirectory(path)) {
            return Mailbox.load(config.userEmail(), emlFolder(path));
        }
        if (Files.isRegularFile(path)) {
            return Mailbox.load(config.userEmail(), mbox(path));
        }
        throw new IllegalArgumentException("mailbox must be 'seed', an mbox file or a folder of .eml files; "
                + path.toAbsolutePath() + " does not exist");
    }

    static List<MailInput> emlFolder(Path folder) {
        List<MailInput> inputs = new ArrayList<>();
        try (Stream<Path> files = Files.walk(folder)) {
            for (Path file : files.filter(f -> f.toString().toLowerCase(Locale.ROOT).endsWith(".eml")).sorted().toList()) {
                byte[] raw = Files.readAllBytes(file);
                inputs.add(input(raw, Files.getLastModifiedTime(file).toMillis()));
            }
        } catch (IOException e) {
            throw new UncheckedIOException("cannot read .eml files in " + folder + ": " + e.getMessage(), e);
        }
        if (inputs.isEmpty()) {
            throw new IllegalArgumentException("mailbox folder " + folder.toAbsolutePath() + " holds no .eml files");
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
                    inputs.add(input(current.toByteArray(), fallbackDate));
                }
                current = new ByteArrayOutputStream();
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
            inputs.add(input(current.toByteArray(), fallbackDate));
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

    private static MailInput input(byte[] raw, long fallbackDate) {
        try {
            InternetHeaders headers = new InternetHeaders(new ByteArrayInputStream(raw));
            long date = fallbackDate;
            String dateHeader = headers.getHeader("Date", null);
            // an undated or impossibly dated message is filed by arrival, as Gmail files it
            date = DateHeader.millis(dateHeader).orElse(fallbackDate);
            String labelsHeader = headers.getHeader("X-Gmail-Labels", null);
            String thread = headers.getHeader("X-GM-THRID", null);
            return new MailInput(raw, labels(labelsHeader), date, thread == null ? null : "takeout:" + thread.strip());
        } catch (MessagingException e) {
            return new MailInput(raw, Set.of(LabelCatalog.INBOX), fallbackDate, null);
        }
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

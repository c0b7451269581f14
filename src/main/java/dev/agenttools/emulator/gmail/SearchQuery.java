package dev.agenttools.emulator.gmail;

import dev.agenttools.emulator.api.ApiError;

import java.time.Clock;
import java.time.Duration;
import java.time.LocalDate;
import java.time.ZoneId;
import java.time.format.DateTimeParseException;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Set;
import java.util.function.Function;
import java.util.function.Predicate;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * Gmail's search-box language ({@code q}) compiled to a predicate over messages: field operators, quoted
 * phrases, free words, {@code OR} and {@code {...}}, parentheses and {@code -} negation. Like Gmail it does not
 * reject a query it does not understand: that is searched for as words. Only nesting more than 100 deep is 400.
 * Written by hand because no library implements Gmail's dialect. Instances are immutable and thread-safe.
 */
final class SearchQuery {
    /** Gmail reads search dates as midnight Pacific time. */
    private static final ZoneId GMAIL_DATE_ZONE = ZoneId.of("America/Los_Angeles");
    private static final Pattern SIZE = Pattern.compile("(\\d+)([kKmM]?)[bB]?");
    private static final Pattern RELATIVE = Pattern.compile("(\\d+)([hdmyHDMY])");
    private static final Set<String> OPERATORS = Set.of("from", "to", "cc", "bcc", "subject", "label", "in", "is",
            "has", "filename", "after", "before", "newer", "older", "older_than", "newer_than", "larger", "smaller",
            "size", "rfc822msgid", "category", "deliveredto", "list");

    private final Predicate<StoredMessage> predicate;
    private final boolean reachesSpamOrTrash;

    private SearchQuery(Predicate<StoredMessage> predicate, boolean reachesSpamOrTrash) {
        this.predicate = predicate;
        this.reachesSpamOrTrash = reachesSpamOrTrash;
    }

    static SearchQuery matchAll() {
        return new SearchQuery(m -> true, false);
    }

    static SearchQuery parse(String q, Mailbox mailbox, Clock clock) {
        if (q == null || q.isBlank()) {
            return matchAll();
        }
        Parser parser = new Parser(q, mailbox, clock);
        List<Predicate<StoredMessage>> parts = new ArrayList<>();
        parts.add(parser.orExpression());
        while (!parser.atEnd()) {
            // a stray ')' or '}': Gmail ignores it; so do we, and go on with the rest
            parser.pos++;
            parts.add(parser.orExpression());
        }
        return new SearchQuery(all(parts), parser.reachesSpamOrTrash);
    }

    /*
     * Terms are combined as flat lists, not as chains of Predicate.and/or: a chain of 10,000 words would nest 10,000
     * calls deep when tested, and overflow the stack.
     */
    private static Predicate<StoredMessage> all(List<Predicate<StoredMessage>> terms) {
        return combined(terms, true);
    }

    private static Predicate<StoredMessage> any(List<Predicate<StoredMessage>> terms) {
        return combined(terms, false);
    }

    /** All of the terms ({@code all}) or any of them: the first term that decides the outcome ends the test. */
    private static Predicate<StoredMessage> combined(List<Predicate<StoredMessage>> terms, boolean all) {
        List<Predicate<StoredMessage>> list = List.copyOf(terms);
        if (list.size() == 1) {
            return list.getFirst();
        }
        return m -> {
            for (Predicate<StoredMessage> p : list) {
                if (p.test(m) != all) {
                    return !all;
                }
            }
            return all;
        };
    }

    boolean test(StoredMessage m) {
        return predicate.test(m);
    }

    /** True when the query itself asks for spam or trash ({@code in:spam}, {@code in:anywhere}...), which lifts the default exclusion. */
    boolean reachesSpamOrTrash() {
        return reachesSpamOrTrash;
    }

    private static final class Parser {
        private final String q;
        private final Mailbox mailbox;
        private final Clock clock;
        private static final int MAX_DEPTH = 100;
        int pos;
        boolean reachesSpamOrTrash;
        private int depth;

        Parser(String q, Mailbox mailbox, Clock clock) {
            this.q = q;
            this.mailbox = mailbox;
            this.clock = clock;
        }

        boolean atEnd() {
            skipSpaces();
            return pos >= q.length();
        }

        private void skipSpaces() {
            while (pos < q.length() && Character.isWhitespace(q.charAt(pos))) {
                pos++;
            }
        }

        private boolean peek(char c) {
            skipSpaces();
            return pos < q.length() && q.charAt(pos) == c;
        }

        private boolean peekOr() {
            skipSpaces();
            return q.startsWith("OR", pos) && (pos + 2 == q.length() || Character.isWhitespace(q.charAt(pos + 2))
                    || q.charAt(pos + 2) == '(');
        }

        Predicate<StoredMessage> orExpression() {
            List<Predicate<StoredMessage>> alternatives = new ArrayList<>();
            alternatives.add(andExpression());
            while (peekOr()) {
                pos += 2;
                alternatives.add(andExpression());
            }
            return any(alternatives);
        }

        private Predicate<StoredMessage> andExpression() {
            List<Predicate<StoredMessage>> terms = new ArrayList<>();
            while (!atEnd() && !peek(')') && !peek('}') && !peekOr()) {
                terms.add(unary());
            }
            return terms.isEmpty() ? m -> true : all(terms);
        }

        /** Parentheses, braces and {@code -} nest by recursion: past {@link #MAX_DEPTH} the query is 400, not a stack overflow. */
        private Predicate<StoredMessage> unary() {
            if (++depth > MAX_DEPTH) {
                throw ApiError.badRequest("q", "Invalid query: parentheses, braces and '-' nest more than " + MAX_DEPTH
                        + " deep");
            }
            try {
                return unaryTerm();
            } finally {
                depth--;
            }
        }

        private Predicate<StoredMessage> unaryTerm() {
            skipSpaces();
            if (peek('-') && pos + 1 < q.length() && !Character.isWhitespace(q.charAt(pos + 1))) {
                pos++;
                return unary().negate();
            }
            if (peek('+')) {
                pos++;
            }
            if (peek('(')) {
                pos++;
                Predicate<StoredMessage> inner = orExpression();
                if (peek(')')) {
                    pos++;
                }
                return inner;
            }
            if (peek('{')) {
                pos++;
                List<Predicate<StoredMessage>> alternatives = new ArrayList<>();
                while (!atEnd() && !peek('}')) {
                    alternatives.add(unary());
                }
                if (peek('}')) {
                    pos++;
                }
                return alternatives.isEmpty() ? m -> false : any(alternatives);
            }
            return term();
        }

        private Predicate<StoredMessage> term() {
            skipSpaces();
            if (peek('"')) {
                return phrase(quoted(), ParsedMessage::searchableText);
            }
            int start = pos;
            while (pos < q.length() && !Character.isWhitespace(q.charAt(pos)) && "(){}\"".indexOf(q.charAt(pos)) < 0
                    && q.charAt(pos) != ':') {
                pos++;
            }
            String word = q.substring(start, pos);
            if (pos < q.length() && q.charAt(pos) == ':' && OPERATORS.contains(word.toLowerCase(Locale.ROOT))) {
                pos++;
                return operator(word.toLowerCase(Locale.ROOT));
            }
            // not an operator: the word (and any "xyz:abc" tail) is searched as text
            while (pos < q.length() && !Character.isWhitespace(q.charAt(pos)) && "(){}\"".indexOf(q.charAt(pos)) < 0) {
                pos++;
            }
            String text = q.substring(start, pos);
            if (text.isEmpty()) {
                pos++; // a lone quote or bracket we cannot use
                return m -> true;
            }
            return words(text, ParsedMessage::searchableText);
        }

        private String quoted() {
            pos++; // opening quote
            int end = q.indexOf('"', pos);
            String text = end < 0 ? q.substring(pos) : q.substring(pos, end);
            pos = end < 0 ? q.length() : end + 1;
            return text;
        }

        /** The operand of an operator: a quoted phrase, a parenthesised group of words, or one word. */
        private String operand() {
            if (pos < q.length() && q.charAt(pos) == '"') {
                return quoted();
            }
            if (pos < q.length() && q.charAt(pos) == '(') {
                int end = q.indexOf(')', pos);
                String text = end < 0 ? q.substring(pos + 1) : q.substring(pos + 1, end);
                pos = end < 0 ? q.length() : end + 1;
                return text;
            }
            int start = pos;
            while (pos < q.length() && !Character.isWhitespace(q.charAt(pos)) && "(){}\"".indexOf(q.charAt(pos)) < 0) {
                pos++;
            }
            return q.substring(start, pos);
        }

        private Predicate<StoredMessage> operator(String op) {
            String value = operand().strip();
            String v = value.toLowerCase(Locale.ROOT);
            return switch (op) {
                case "from" -> address(v, p -> p.from());
                case "to" -> address(v, p -> p.to() + " " + p.cc() + " " + p.bcc());
                case "cc" -> address(v, ParsedMessage::cc);
                case "bcc" -> address(v, ParsedMessage::bcc);
                case "deliveredto" -> address(v, ParsedMessage::deliveredTo);
                case "list" -> address(v, ParsedMessage::listId);
                case "subject" -> words(value, ParsedMessage::subject);
                case "label" -> label(v);
                case "in" -> in(v);
                case "is" -> is(v);
                case "has" -> has(v);
                case "category" -> hasLabel("CATEGORY_" + (v.equals("primary") ? "PERSONAL" : v.toUpperCase(Locale.ROOT)));
                case "filename" -> m -> m.parsed.attachmentNames().stream()
                        .map(n -> n.toLowerCase(Locale.ROOT)).anyMatch(n -> n.contains(v));
                case "after", "newer" -> date(value, true);
                case "before", "older" -> date(value, false);
                case "newer_than" -> relative(value, true);
                case "older_than" -> relative(value, false);
                case "larger", "size" -> size(value, true);
                case "smaller" -> size(value, false);
                case "rfc822msgid" -> m -> m.parsed.rfc822MessageId().replaceAll("[<>]", "")
                        .equalsIgnoreCase(value.replaceAll("[<>]", ""));
                default -> words(op + ":" + value, ParsedMessage::searchableText);
            };
        }

        private Predicate<StoredMessage> address(String v, Function<ParsedMessage, String> field) {
            String wanted = v.equals("me") ? mailbox.email.toLowerCase(Locale.ROOT) : v;
            return m -> field.apply(m.parsed).toLowerCase(Locale.ROOT).contains(wanted);
        }

        private Predicate<StoredMessage> label(String v) {
            if (v.equals("spam") || v.equals("trash")) {
                reachesSpamOrTrash = true;
            }
            List<String> ids = mailbox.labelIdsForSearchName(v);
            return m -> ids.stream().anyMatch(m.labels()::contains);
        }

        private Predicate<StoredMessage> in(String v) {
            return switch (v) {
                case "anywhere", "all" -> {
                    reachesSpamOrTrash = true;
                    yield m -> true;
                }
                case "spam", "trash" -> {
                    reachesSpamOrTrash = true;
                    yield hasLabel(v.toUpperCase(Locale.ROOT));
                }
                case "drafts", "draft" -> hasLabel(LabelCatalog.DRAFT);
                case "inbox", "sent", "starred", "important", "chats" ->
                        hasLabel(v.equals("chats") ? "CHAT" : v.toUpperCase(Locale.ROOT));
                case "snoozed" -> m -> false;
                default -> label(v);
            };
        }

        private Predicate<StoredMessage> is(String v) {
            return switch (v) {
                case "unread" -> hasLabel(LabelCatalog.UNREAD);
                case "read" -> hasLabel(LabelCatalog.UNREAD).negate();
                case "starred" -> hasLabel(LabelCatalog.STARRED);
                case "important" -> hasLabel(LabelCatalog.IMPORTANT);
                case "snoozed", "muted" -> m -> false;
                default -> words("is:" + v, ParsedMessage::searchableText);
            };
        }

        private Predicate<StoredMessage> has(String v) {
            return switch (v) {
                case "attachment" -> m -> m.parsed.hasAttachment();
                case "userlabels" -> m -> m.labels().stream().anyMatch(l -> l.startsWith("Label_"));
                case "nouserlabels" -> m -> m.labels().stream().noneMatch(l -> l.startsWith("Label_"));
                case "yellow-star", "star" -> hasLabel(LabelCatalog.STARRED);
                default -> m -> false; // drive, document, youtube...: nothing here links to those
            };
        }

        private static Predicate<StoredMessage> hasLabel(String id) {
            return m -> m.labels().contains(id);
        }

        private Predicate<StoredMessage> date(String value, boolean after) {
            long millis;
            if (value.matches("\\d{9,}")) {
                millis = Long.parseLong(value) * 1000; // epoch seconds, the API's way to give an exact instant
            } else {
                try {
                    LocalDate day = LocalDate.parse(value.replace('/', '-').replaceAll("-(\\d)(?=-|$)", "-0$1"));
                    millis = day.atStartOfDay(GMAIL_DATE_ZONE).toInstant().toEpochMilli();
                } catch (DateTimeParseException e) {
                    return words((after ? "after:" : "before:") + value, ParsedMessage::searchableText);
                }
            }
            return after ? m -> m.internalDate >= millis : m -> m.internalDate < millis;
        }

        private Predicate<StoredMessage> relative(String value, boolean newer) {
            Matcher matcher = RELATIVE.matcher(value);
            if (!matcher.matches()) {
                return words((newer ? "newer_than:" : "older_than:") + value, ParsedMessage::searchableText);
            }
            long n = Long.parseLong(matcher.group(1));
            Duration span = switch (Character.toLowerCase(matcher.group(2).charAt(0))) {
                case 'h' -> Duration.ofHours(n);
                case 'd' -> Duration.ofDays(n);
                case 'm' -> Duration.ofDays(30 * n);
                default -> Duration.ofDays(365 * n);
            };
            long cut = clock.millis() - span.toMillis();
            return newer ? m -> m.internalDate > cut : m -> m.internalDate <= cut;
        }

        private Predicate<StoredMessage> size(String value, boolean larger) {
            Matcher matcher = SIZE.matcher(value);
            if (!matcher.matches()) {
                return words((larger ? "larger:" : "smaller:") + value, ParsedMessage::searchableText);
            }
            long n = Long.parseLong(matcher.group(1));
            long bytes = switch (matcher.group(2).toLowerCase(Locale.ROOT)) {
                case "k" -> n * 1024;
                case "m" -> n * 1024 * 1024;
                default -> n;
            };
            return larger ? m -> m.raw.length > bytes : m -> m.raw.length < bytes;
        }

        private static Predicate<StoredMessage> phrase(String text, Function<ParsedMessage, String> field) {
            String wanted = text.toLowerCase(Locale.ROOT).replaceAll("\\s+", " ").strip();
            if (wanted.isEmpty()) {
                return m -> true;
            }
            return m -> normalize(field.apply(m.parsed)).contains(wanted);
        }

        /** Every word must occur as a whole word (a substring for scripts written without spaces). */
        private static Predicate<StoredMessage> words(String text, Function<ParsedMessage, String> field) {
            List<Pattern> patterns = new ArrayList<>();
            for (String w : text.toLowerCase(Locale.ROOT).split("\\s+")) {
                if (!w.isBlank()) {
                    patterns.add(wordPattern(w));
                }
            }
            return m -> {
                String haystack = field.apply(m.parsed).toLowerCase(Locale.ROOT);
                return patterns.stream().allMatch(p -> p.matcher(haystack).find());
            };
        }

        private static Pattern wordPattern(String word) {
            boolean spaced = word.codePoints().allMatch(c -> c < 0x2E80); // CJK and later: no word boundaries
            String quoted = Pattern.quote(word);
            return spaced ? Pattern.compile("(?<![\\p{L}\\p{N}])" + quoted + "(?![\\p{L}\\p{N}])") : Pattern.compile(quoted);
        }

        private static String normalize(String s) {
            return s.toLowerCase(Locale.ROOT).replaceAll("\\s+", " ");
        }
    }
}

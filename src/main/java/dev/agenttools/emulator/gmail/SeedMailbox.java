package dev.agenttools.emulator.gmail;

import jakarta.mail.BodyPart;
import jakarta.mail.Message;
import jakarta.mail.MessagingException;
import jakarta.mail.Multipart;
import jakarta.mail.internet.InternetAddress;
import jakarta.mail.internet.MimeBodyPart;
import jakarta.mail.internet.MimeMessage;
import jakarta.mail.internet.MimeMultipart;
import jakarta.mail.util.ByteArrayDataSource;

import javax.imageio.ImageIO;
import java.awt.Color;
import java.awt.image.BufferedImage;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.UnsupportedEncodingException;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Date;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Set;
import java.util.SplittableRandom;

import static dev.agenttools.emulator.gmail.SeedText.pick;

/**
 * The deterministic seeded mailbox: the same seed and anchor give the same messages, byte for byte. Mail is
 * built as real MIME with Angus Mail in every shape agents meet: plain text, HTML only, multipart/alternative,
 * attachments, inline images, Japanese in UTF-8 and ISO-2022-JP, quoted-printable and base64, long threads,
 * system and user labels, dates over two years.
 */
final class SeedMailbox {
    private static final Duration SPAN = Duration.ofDays(730);
    private static final int LONG_THREADS = 3;

    enum Kind { WORK, JAPANESE_ISO, JAPANESE_UTF8, NEWSLETTER, RECEIPT, TRAVEL, NOTIFICATION, PHOTOS, SPAM, SOCIAL, REPORT }

    private static final Kind[] WEIGHTED = {
            Kind.WORK, Kind.WORK, Kind.WORK, Kind.WORK, Kind.JAPANESE_ISO, Kind.JAPANESE_ISO, Kind.JAPANESE_UTF8,
            Kind.NEWSLETTER, Kind.NEWSLETTER, Kind.RECEIPT, Kind.TRAVEL, Kind.NOTIFICATION, Kind.NOTIFICATION,
            Kind.NOTIFICATION, Kind.PHOTOS, Kind.SPAM, Kind.SOCIAL, Kind.SOCIAL, Kind.REPORT};

    private final SplittableRandom random;
    private final Instant anchor;
    private final InternetAddress me;
    /** What ends every subject, or null (the first user's mailbox, as it always was). */
    private final String subjectTag;
    private final List<MailInput> out = new ArrayList<>();
    private final List<byte[]> images = new ArrayList<>();
    private int sequence;

    private SeedMailbox(long seed, Instant anchor, String me, String subjectTag) {
        this.random = new SplittableRandom(seed);
        this.anchor = anchor;
        this.subjectTag = subjectTag;
        try {
            this.me = new InternetAddress(me, "Alex Morgan", "UTF-8");
        } catch (UnsupportedEncodingException e) {
            throw new IllegalStateException(e);
        }
        for (Color c : new Color[] {new Color(0x1A73E8), new Color(0x34A853), new Color(0xFBBC05)}) {
            images.add(png(c));
        }
    }

    static List<MailInput> generate(long seed, int count, Instant anchor, String me) {
        return generate(seed, count, anchor, me, null);
    }

    /**
     * As {@link #generate(long, int, Instant, String)}; with a {@code subjectTag}, a further user's mailbox: the three
     * large messages are left out (over 3 MB of mail, too much to give each of a thousand users) and every subject ends
     * with the tag (" [user7]"), so that no two users' mail looks alike.
     */
    static List<MailInput> generate(long seed, int count, Instant anchor, String me, String subjectTag) {
        boolean specials = subjectTag == null;
        SeedMailbox box = new SeedMailbox(seed, anchor, me, subjectTag);
        try {
            if (specials) {
                box.specials(count);
            }
            int thread = 0;
            while (box.out.size() < count) {
                Kind kind = thread < LONG_THREADS ? Kind.WORK : WEIGHTED[box.random.nextInt(WEIGHTED.length)];
                int length = thread < LONG_THREADS ? 25 + box.random.nextInt(16) : box.threadLength(kind);
                if (!specials && thread < LONG_THREADS) {
                    // a small mailbox of a further user would be one long thread: keep the long ones a tenth of it
                    length = Math.min(length, Math.max(2, count / 10));
                }
                box.thread(kind, Math.min(length, count - box.out.size()), "t" + thread);
                thread++;
            }
        } catch (MessagingException | IOException e) {
            throw new IllegalStateException("seed mailbox generation failed: " + e.getMessage(), e);
        }
        return box.out;
    }

    private int threadLength(Kind kind) {
        return switch (kind) {
            case WORK, JAPANESE_ISO, JAPANESE_UTF8, PHOTOS -> {
                int r = random.nextInt(100);
                yield r < 55 ? 1 : r < 80 ? 2 + random.nextInt(2) : r < 95 ? 4 + random.nextInt(5) : 9 + random.nextInt(8);
            }
            default -> 1;
        };
    }

    /** Messages tests and the benchmark rely on: a 1 MB HTML body (1.1 MB), an empty subject, a large attachment. */
    private void specials(int count) throws MessagingException, IOException {
        if (count < 10) {
            return;
        }
        SeedText.Person sender = SeedText.PEOPLE.get(0);
        Instant recent = anchor.minus(Duration.ofHours(30));
        // 1 MB HTML-only newsletter
        StringBuilder html = new StringBuilder("<html><head><style>p{margin:0}</style></head><body><h1>Monthly digest</h1>");
        int i = 0;
        while (html.length() < 1_100_000) {
            html.append("<p>Item ").append(++i).append(": ").append(SeedText.escape(SeedText.paragraph(random, 3)))
                    .append(" <a href=\"https://news.example/item/").append(i).append("\">Read more</a></p>\n");
        }
        html.append("</body></html>");
        MimeMessage digest = message(new InternetAddress("digest@news.example", "Northwind Digest"), me,
                "Monthly digest: everything that happened", recent, "UTF-8");
        digest.setText(html.toString(), "UTF-8", "html");
        digest.setHeader("Content-Transfer-Encoding", "quoted-printable");
        add(digest, recent, new LinkedHashSet<>(List.of(LabelCatalog.INBOX, LabelCatalog.UNREAD, "CATEGORY_PROMOTIONS", "user:Newsletters")), "special-digest");
        // no subject at all
        Instant noSubjectAt = anchor.minus(Duration.ofHours(50));
        MimeMessage bare = message(address(sender), me, null, noSubjectAt, "UTF-8");
        bare.setText("Sent from my phone. " + SeedText.paragraph(random, 1), "UTF-8");
        add(bare, noSubjectAt, new LinkedHashSet<>(List.of(LabelCatalog.INBOX, "CATEGORY_PERSONAL")), "special-nosubject");
        // a large attachment (about 1.5 MB of CSV)
        Instant bigAt = anchor.minus(Duration.ofDays(20));
        MimeMessage big = message(address(SeedText.PEOPLE.get(4)), me, "Full dataset export", bigAt, "UTF-8");
        StringBuilder csv = new StringBuilder("id,region,latency_ms,status\n");
        for (int row = 0; csv.length() < 1_500_000; row++) {
            csv.append(row).append(',').append(pick(random, List.of("us-east", "eu-west", "ap-northeast")))
                    .append(',').append(100 + random.nextInt(400)).append(",ok\n");
        }
        big.setContent(mixed(textPart("Here is the full export you asked for.\n\nMei", "UTF-8", null),
                attachment(csv.toString().getBytes(StandardCharsets.UTF_8), "text/csv", "dataset.csv")));
        add(big, bigAt, new LinkedHashSet<>(List.of(LabelCatalog.INBOX, "CATEGORY_PERSONAL", "user:Work")), "special-dataset");
    }

    private void thread(Kind kind, int length, String key) throws MessagingException, IOException {
        Instant start = anchor.minus(Duration.ofSeconds((long) (Math.pow(random.nextDouble(), 1.6) * SPAN.toSeconds())));
        SeedText.Person other = switch (kind) {
            case JAPANESE_ISO, JAPANESE_UTF8 -> SeedText.PEOPLE.get(8 + random.nextInt(4));
            default -> SeedText.PEOPLE.get(random.nextInt(8));
        };
        String subject = kind == Kind.JAPANESE_ISO || kind == Kind.JAPANESE_UTF8
                ? SeedText.japaneseSubject(random) : SeedText.subject(random);
        Instant at = start;
        String firstId = null;
        List<String> references = new ArrayList<>();
        for (int n = 0; n < length; n++) {
            boolean fromMe = n % 2 == 1 && kind != Kind.NEWSLETTER && kind != Kind.NOTIFICATION;
            if (at.isAfter(anchor.minusSeconds(60))) {
                at = anchor.minusSeconds(60 + random.nextInt(3600));
            }
            MimeMessage m = build(kind, other, fromMe, n == 0 ? subject : "Re: " + subject, at, n);
            m.saveChanges(); // assigns the Message-ID (before it the header is absent, and replies said "null")
            String messageId = m.getHeader("Message-ID", null);
            if (n > 0) {
                m.setHeader("In-Reply-To", references.getLast());
                m.setHeader("References", String.join(" ", references));
            }
            references.add(messageId);
            if (firstId == null) {
                firstId = messageId;
            }
            add(m, at, labels(kind, at, fromMe), key);
            at = at.plus(Duration.ofMinutes(20 + random.nextInt(60 * 36)));
        }
    }

    private MimeMessage build(Kind kind, SeedText.Person other, boolean fromMe, String subject, Instant at, int n)
            throws MessagingException, IOException {
        InternetAddress them = address(other);
        InternetAddress from = fromMe ? me : them;
        InternetAddress to = fromMe ? them : me;
        String greeting = "Hi " + (fromMe ? other.name().split(" ")[0] : "Alex") + ",";
        String signature = fromMe ? "Alex" : other.name();
        return switch (kind) {
            case WORK -> {
                MimeMessage m = message(from, to, subject, at, "UTF-8");
                if (random.nextInt(3) == 0) {
                    m.setRecipients(Message.RecipientType.CC, new InternetAddress[] {address(SeedText.PEOPLE.get(random.nextInt(8)))});
                }
                String text = SeedText.body(random, greeting, signature, 1 + random.nextInt(3));
                if (random.nextBoolean()) {
                    m.setContent(alternative(text, "UTF-8", random.nextBoolean() ? "quoted-printable" : "base64"));
                } else {
                    m.setText(text, "UTF-8");
                }
                yield m;
            }
            case JAPANESE_ISO -> {
                MimeMessage m = message(from, to, subject, at, "ISO-2022-JP");
                String text = (fromMe ? other.name().split(" ")[0] + "様\n\n" : "モーガン様\n\n")
                        + SeedText.japaneseParagraph(random, 3 + random.nextInt(3)) + "\n\n" + signature + "\n";
                m.setText(text, "ISO-2022-JP");
                m.setHeader("Content-Transfer-Encoding", "7bit");
                yield m;
            }
            case JAPANESE_UTF8 -> {
                MimeMessage m = message(from, to, subject, at, "UTF-8");
                String text = SeedText.japaneseParagraph(random, 4) + "\n\n" + signature + "\n";
                m.setContent(alternative(text, "UTF-8", "base64"));
                yield m;
            }
            case NEWSLETTER -> {
                MimeMessage m = message(new InternetAddress("news@" + pick(random, List.of("dailybrief", "devweekly", "shopnow")) + ".example",
                        "The Weekly Brief"), me, "This week: " + SeedText.subject(random), at, "UTF-8");
                m.setHeader("List-Id", "<weekly.news.example>");
                m.setHeader("List-Unsubscribe", "<https://news.example/unsubscribe>");
                String html = "<html><body><h1>This week</h1>" + SeedText.html(SeedText.paragraph(random, 4))
                        + "<p><a href=\"https://news.example/read\">Read online</a> &middot; Don't miss out &amp; save 20%</p></body></html>";
                m.setText(html, "UTF-8", "html");
                m.setHeader("Content-Transfer-Encoding", "quoted-printable");
                yield m;
            }
            case RECEIPT -> {
                MimeMessage m = message(new InternetAddress("receipts@" + pick(random, List.of("cloudhost", "bookshop", "airline")) + ".example",
                        "Billing"), me, "Your receipt #" + (10_000 + random.nextInt(90_000)), at, "UTF-8");
                String text = "Thank you for your purchase.\n\nTotal: $" + (5 + random.nextInt(400)) + "." + (10 + random.nextInt(89))
                        + "\n\nThe invoice is attached as a PDF.\n";
                m.setContent(mixed(alternativePart(text), attachment(pdf(text), "application/pdf", "invoice-" + at.toEpochMilli() / 1000 + ".pdf")));
                yield m;
            }
            case TRAVEL -> {
                MimeMessage m = message(new InternetAddress("trips@airline.example", "SkyWays"), me,
                        "Your trip to " + pick(random, List.of("Tokyo", "Lisbon", "Toronto", "Nairobi")) + " is confirmed", at, "UTF-8");
                MimeMultipart related = new FixedMultipart("related", boundary());
                MimeBodyPart html = new MimeBodyPart();
                html.setText("<html><body><img src=\"cid:logo@skyways\" alt=\"SkyWays\"><p>"
                        + SeedText.escape(SeedText.paragraph(random, 2)) + "</p></body></html>", "UTF-8", "html");
                related.addBodyPart(html);
                MimeBodyPart logo = new MimeBodyPart();
                logo.setDataHandler(new jakarta.activation.DataHandler(new ByteArrayDataSource(pick(random, images), "image/png")));
                logo.setContentID("<logo@skyways>");
                logo.setDisposition(MimeBodyPart.INLINE);
                logo.setFileName("logo.png");
                related.addBodyPart(logo);
                MimeBodyPart relatedPart = new MimeBodyPart();
                relatedPart.setContent(related);
                String ics = "BEGIN:VCALENDAR\r\nVERSION:2.0\r\nPRODID:-//SkyWays//EN\r\nBEGIN:VEVENT\r\nUID:" + sequence
                        + "@skyways\r\nDTSTART:20261201T090000Z\r\nSUMMARY:Flight\r\nEND:VEVENT\r\nEND:VCALENDAR\r\n";
                m.setContent(mixed(relatedPart, attachment(ics.getBytes(StandardCharsets.UTF_8), "text/calendar", "itinerary.ics")));
                yield m;
            }
            case NOTIFICATION -> {
                MimeMessage m = message(new InternetAddress("notifications@github.example", other.name()), me,
                        "[agent-tools] " + pick(random, List.of("Fix batch retries", "Add HTTP/2 transport", "Quota pacing", "Emulator faults"))
                                + " (PR #" + (1 + random.nextInt(400)) + ")", at, "UTF-8");
                m.setHeader("List-Id", "agent-tools <agent-tools.github.example>");
                m.setText(SeedText.paragraph(random, 2) + "\n\n-- \nReply to this email directly or view it on GitHub.\n", "UTF-8");
                yield m;
            }
            case PHOTOS -> {
                MimeMessage m = message(from, to, n == 0 ? "Photos from the weekend" : subject, at, "UTF-8");
                List<BodyPart> parts = new ArrayList<>();
                parts.add(textPart(greeting + "\n\n" + SeedText.paragraph(random, 2) + "\n\n" + signature + "\n", "UTF-8", null));
                int count = 1 + random.nextInt(3);
                for (int i = 0; i < count; i++) {
                    parts.add(attachment(pick(random, images), "image/png", "IMG_" + (1000 + random.nextInt(9000)) + ".png"));
                }
                m.setContent(mixed(parts.toArray(BodyPart[]::new)));
                yield m;
            }
            case SPAM -> {
                MimeMessage m = message(new InternetAddress("winner@prize-" + random.nextInt(100) + ".example", "Prize Dept"), me,
                        "You have WON a $1000 gift card!!!", at, "UTF-8");
                m.setText("<html><body><p>Claim your <b>prize</b> now &amp; don't wait!</p></body></html>", "UTF-8", "html");
                yield m;
            }
            case SOCIAL -> {
                MimeMessage m = message(new InternetAddress("notify@social.example", "Social Network"), me,
                        other.name() + " mentioned you in a comment", at, "UTF-8");
                m.setContent(alternative(other.name() + " wrote: \"" + SeedText.paragraph(random, 1) + "\"\n", "UTF-8", "quoted-printable"));
                yield m;
            }
            case REPORT -> {
                MimeMessage m = message(from, to, subject, at, "UTF-8");
                StringBuilder csv = new StringBuilder("week,requests,p50_ms,p90_ms\n");
                for (int w = 1; w <= 12; w++) {
                    csv.append(w).append(',').append(1000 + random.nextInt(9000)).append(',').append(100 + random.nextInt(60))
                            .append(',').append(200 + random.nextInt(200)).append('\n');
                }
                m.setContent(mixed(textPart(SeedText.body(random, greeting, signature, 1), "UTF-8", "quoted-printable"),
                        attachment(csv.toString().getBytes(StandardCharsets.UTF_8), "text/csv", "report.csv")));
                yield m;
            }
        };
    }

    private Set<String> labels(Kind kind, Instant at, boolean fromMe) {
        Set<String> labels = new LinkedHashSet<>();
        String userLabel = switch (kind) {
            case WORK, REPORT -> "user:Work";
            case JAPANESE_ISO, JAPANESE_UTF8 -> "user:Clients/Japan";
            case NEWSLETTER -> "user:Newsletters";
            case RECEIPT -> "user:Receipts";
            case TRAVEL -> "user:Travel";
            case NOTIFICATION -> "user:Projects/agent-tools";
            case PHOTOS -> "user:Family";
            default -> null;
        };
        if (fromMe) {
            labels.add(LabelCatalog.SENT);
            if (userLabel != null && random.nextBoolean()) {
                labels.add(userLabel);
            }
            return labels;
        }
        if (kind == Kind.SPAM) {
            labels.add(LabelCatalog.SPAM);
            labels.add(LabelCatalog.UNREAD);
            return labels;
        }
        long ageDays = Duration.between(at, anchor).toDays();
        boolean trashed = random.nextInt(50) == 0;
        labels.add(trashed ? LabelCatalog.TRASH : LabelCatalog.INBOX);
        int unreadPercent = ageDays < 14 ? 65 : ageDays < 90 ? 25 : 5;
        if (random.nextInt(100) < unreadPercent) {
            labels.add(LabelCatalog.UNREAD);
        }
        if (random.nextInt(25) == 0) {
            labels.add(LabelCatalog.STARRED);
        }
        if ((kind == Kind.WORK || kind == Kind.JAPANESE_ISO || kind == Kind.REPORT) && random.nextInt(3) == 0) {
            labels.add(LabelCatalog.IMPORTANT);
        }
        labels.add(switch (kind) {
            case NEWSLETTER -> "CATEGORY_PROMOTIONS";
            case RECEIPT, TRAVEL, NOTIFICATION -> "CATEGORY_UPDATES";
            case SOCIAL -> "CATEGORY_SOCIAL";
            default -> "CATEGORY_PERSONAL";
        });
        if (userLabel != null) {
            labels.add(userLabel);
        }
        return labels;
    }

    private MimeMessage message(InternetAddress from, InternetAddress to, String subject, Instant at, String charset)
            throws MessagingException {
        sequence++;
        MimeMessage m = new FixedIdMessage("<seed." + sequence + "." + Long.toHexString(at.toEpochMilli()) + "@mail.example>");
        m.setFrom(from);
        m.setRecipient(Message.RecipientType.TO, to);
        if (subject != null) {
            m.setSubject(subjectTag == null ? subject : subject + " " + subjectTag, charset);
        }
        m.setSentDate(Date.from(at));
        m.setHeader("Delivered-To", me.getAddress());
        return m;
    }

    private void add(MimeMessage m, Instant at, Set<String> labels, String threadKey) throws MessagingException, IOException {
        m.saveChanges();
        ByteArrayOutputStream bytes = new ByteArrayOutputStream();
        m.writeTo(bytes);
        // received mail reaches Google a few seconds after its Date header
        long internal = at.toEpochMilli() + (labels.contains(LabelCatalog.SENT) ? 0 : 1000L * (1 + random.nextInt(30)));
        out.add(new MailInput(bytes.toByteArray(), labels, internal, threadKey, "seed message " + (out.size() + 1)));
    }

    private static InternetAddress address(SeedText.Person p) throws UnsupportedEncodingException {
        return new InternetAddress(p.email(), p.name(), "UTF-8");
    }

    private MimeMultipart alternative(String text, String charset, String encoding) throws MessagingException {
        MimeMultipart alt = new FixedMultipart("alternative", boundary());
        alt.addBodyPart(textPart(text, charset, encoding));
        MimeBodyPart html = new MimeBodyPart();
        html.setText(SeedText.html(text), charset, "html");
        html.setHeader("Content-Transfer-Encoding", encoding);
        alt.addBodyPart(html);
        return alt;
    }

    private MimeBodyPart alternativePart(String text) throws MessagingException {
        MimeBodyPart part = new MimeBodyPart();
        part.setContent(alternative(text, "UTF-8", "quoted-printable"));
        return part;
    }

    private static MimeBodyPart textPart(String text, String charset, String encoding) throws MessagingException {
        MimeBodyPart part = new MimeBodyPart();
        part.setText(text, charset);
        if (encoding != null) {
            part.setHeader("Content-Transfer-Encoding", encoding);
        }
        return part;
    }

    private static MimeBodyPart attachment(byte[] data, String type, String name) throws MessagingException {
        MimeBodyPart part = new MimeBodyPart();
        part.setDataHandler(new jakarta.activation.DataHandler(new ByteArrayDataSource(data, type)));
        part.setFileName(name);
        part.setDisposition(MimeBodyPart.ATTACHMENT);
        part.setHeader("Content-Transfer-Encoding", "base64");
        return part;
    }

    private Multipart mixed(BodyPart... parts) throws MessagingException {
        MimeMultipart mixed = new FixedMultipart("mixed", boundary());
        for (BodyPart p : parts) {
            mixed.addBodyPart(p);
        }
        return mixed;
    }

    private String boundary() {
        return "==seed_" + Long.toHexString(random.nextLong() & Long.MAX_VALUE) + "==";
    }

    private static byte[] pdf(String text) {
        String content = "BT /F1 12 Tf 72 720 Td (" + text.replaceAll("[()\\\\\\n]", " ") + ") Tj ET";
        String pdf = "%PDF-1.4\n1 0 obj<</Type/Catalog/Pages 2 0 R>>endobj\n2 0 obj<</Type/Pages/Kids[3 0 R]/Count 1>>endobj\n"
                + "3 0 obj<</Type/Page/Parent 2 0 R/MediaBox[0 0 612 792]/Contents 4 0 R>>endobj\n"
                + "4 0 obj<</Length " + content.length() + ">>stream\n" + content + "\nendstream endobj\ntrailer<</Root 1 0 R>>\n%%EOF\n";
        return pdf.getBytes(StandardCharsets.US_ASCII);
    }

    private static byte[] png(Color color) {
        BufferedImage image = new BufferedImage(48, 48, BufferedImage.TYPE_INT_RGB);
        for (int y = 0; y < 48; y++) {
            for (int x = 0; x < 48; x++) {
                image.setRGB(x, y, ((x / 8 + y / 8) % 2 == 0) ? color.getRGB() : Color.WHITE.getRGB());
            }
        }
        try {
            ByteArrayOutputStream out = new ByteArrayOutputStream();
            ImageIO.write(image, "png", out);
            return out.toByteArray();
        } catch (IOException e) {
            throw new IllegalStateException(e);
        }
    }

    /** Keeps the Message-ID we chose: the default one is random, and the seeded mailbox must be reproducible. */
    private static final class FixedIdMessage extends MimeMessage {
        private final String messageId;

        FixedIdMessage(String messageId) {
            super(MimeParser.session());
            this.messageId = messageId;
        }

        @Override
        protected void updateMessageID() throws MessagingException {
            setHeader("Message-ID", messageId);
        }
    }

    /** A multipart with a seeded boundary: the default boundary holds the clock time, which breaks reproducibility. */
    private static final class FixedMultipart extends MimeMultipart {
        FixedMultipart(String subtype, String boundary) {
            super(subtype);
            contentType = "multipart/" + subtype + "; boundary=\"" + boundary + "\"";
        }
    }
}

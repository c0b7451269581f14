package dev.agenttools.gmail;

/** Public entry to the text conversions get_email uses, for library users and the benchmark. */
public final class MailText {
    private MailText() {
    }

    /** HTML mail as readable text: paragraphs kept, scripts and styles dropped, links as {@code text (url)}. */
    public static String htmlToText(String html) {
        return HtmlText.toText(html);
    }
}

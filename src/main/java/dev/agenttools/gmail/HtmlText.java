package dev.agenttools.gmail;

import org.jsoup.Jsoup;
import org.jsoup.nodes.Element;
import org.jsoup.nodes.Node;
import org.jsoup.nodes.TextNode;
import org.jsoup.select.NodeTraversor;
import org.jsoup.select.NodeVisitor;

import java.util.Set;

/**
 * HTML mail as readable text for an agent: paragraphs and line breaks kept, scripts and styles dropped, links
 * kept as {@code text (url)}. jsoup parses; this visitor only decides where lines break, which jsoup's own
 * {@code text()} flattens away.
 */
final class HtmlText {
    private static final Set<String> BLOCKS = Set.of("p", "div", "br", "h1", "h2", "h3", "h4", "h5", "h6", "li", "tr",
            "table", "blockquote", "pre", "ul", "ol", "section", "article", "header", "footer", "hr", "dt", "dd");
    private static final Set<String> SKIPPED = Set.of("script", "style", "head", "noscript", "template", "title");

    private HtmlText() {
    }

    static String toText(String html) {
        StringBuilder out = new StringBuilder(Math.min(html.length(), 1 << 20));
        Element body = Jsoup.parse(html).body();
        NodeTraversor.traverse(new Visitor(out), body);
        return tidy(out);
    }

    private static final class Visitor implements NodeVisitor {
        private final StringBuilder out;
        private int skipping;

        Visitor(StringBuilder out) {
            this.out = out;
        }

        @Override
        public void head(Node node, int depth) {
            if (node instanceof Element e) {
                String tag = e.normalName();
                if (SKIPPED.contains(tag)) {
                    skipping++;
                } else if (skipping == 0 && BLOCKS.contains(tag)) {
                    newline();
                    if (tag.equals("li")) {
                        out.append("- ");
                    }
                }
            } else if (node instanceof TextNode t && skipping == 0) {
                String text = t.text();
                if (text.isBlank()) {
                    // whitespace between inline elements (<span>a</span> <span>b</span>) still separates words
                    if (!text.isEmpty() && !out.isEmpty() && !Character.isWhitespace(out.charAt(out.length() - 1))) {
                        out.append(' ');
                    }
                } else {
                    if (!out.isEmpty() && !Character.isWhitespace(out.charAt(out.length() - 1)) && Character.isWhitespace(text.charAt(0))) {
                        out.append(' ');
                    }
                    out.append(text.strip());
                    if (Character.isWhitespace(text.charAt(text.length() - 1))) {
                        out.append(' ');
                    }
                }
            }
        }

        @Override
        public void tail(Node node, int depth) {
            if (node instanceof Element e) {
                String tag = e.normalName();
                if (SKIPPED.contains(tag)) {
                    skipping--;
                } else if (skipping == 0) {
                    if (tag.equals("a")) {
                        String href = e.attr("href").strip();
                        String text = e.text().strip();
                        if (!href.isEmpty() && !href.startsWith("#") && !href.startsWith("cid:") && !href.equals(text)
                                && !href.startsWith("javascript:")) {
                            if (!out.isEmpty() && out.charAt(out.length() - 1) != ' ') {
                                out.append(' ');
                            }
                            out.append('(').append(href.startsWith("mailto:") ? href.substring(7) : href).append(") ");
                        }
                    } else if (BLOCKS.contains(tag)) {
                        newline();
                    }
                }
            }
        }

        private void newline() {
            if (!out.isEmpty() && out.charAt(out.length() - 1) != '\n') {
                out.append('\n');
            }
        }
    }

    /** Trims each line and keeps at most one blank line in a row. */
    private static String tidy(StringBuilder text) {
        StringBuilder out = new StringBuilder(text.length());
        int blank = 0;
        for (String line : text.toString().split("\n", -1)) {
            String l = line.strip();
            if (l.isEmpty()) {
                blank++;
                continue;
            }
            if (!out.isEmpty()) {
                out.append(blank > 0 ? "\n\n" : "\n");
            }
            blank = 0;
            out.append(l);
        }
        return out.toString();
    }
}

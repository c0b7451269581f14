package dev.agenttools.emulator.gmail;

import java.util.List;
import java.util.SplittableRandom;

/** Word and sentence material for the seeded mailbox, in English and Japanese. Pure functions of the RNG. */
final class SeedText {
    record Person(String name, String email, boolean japanese) {
    }

    static final List<Person> PEOPLE = List.of(
            new Person("Priya Raman", "priya.raman@northwind.example", false),
            new Person("Tomás Alvarez", "tomas@alvarez-design.example", false),
            new Person("Grace Okafor", "grace.okafor@contoso.example", false),
            new Person("Liam O'Brien", "liam.obrien@contoso.example", false),
            new Person("Mei Chen", "mei.chen@fabrikam.example", false),
            new Person("Jonas Becker", "jonas.becker@tailspin.example", false),
            new Person("Sofia Rossi", "sofia.rossi@adatum.example", false),
            new Person("Noah Williams", "noah.w@litware.example", false),
            new Person("山田 太郎", "taro.yamada@example.co.jp", true),
            new Person("佐藤 花子", "hanako.sato@example.co.jp", true),
            new Person("鈴木 一郎", "ichiro.suzuki@example.ne.jp", true),
            new Person("高橋 美咲", "misaki.takahashi@example.jp", true));

    private static final List<String> TOPICS = List.of("quarterly planning", "the launch checklist", "budget review",
            "the design doc", "API rate limits", "onboarding plan", "customer feedback", "the migration",
            "hiring loop", "security review", "the offsite agenda", "release notes", "benchmark results",
            "contract renewal", "incident follow-up", "the roadmap");
    private static final List<String> OPENERS = List.of("Quick update on", "Following up on", "Thoughts on",
            "Question about", "Draft of", "Notes from our call about", "Next steps for", "Can we talk about");
    private static final List<String> SENTENCES = List.of(
            "I went through the numbers again and they look consistent with last month.",
            "Could you take a look before Thursday's meeting?",
            "The staging environment is ready for another round of testing.",
            "We should keep the scope small so we can ship it this quarter.",
            "Let me know if the attached version works for you.",
            "I'm not sure the current timeline is realistic, so let's revisit it.",
            "Thanks for pulling this together on such short notice!",
            "The latency dropped from 1.6 seconds to about 300 milliseconds after the change.",
            "Can you share the dashboard link with the rest of the team?",
            "I added comments inline; most of them are minor wording fixes.",
            "We're still waiting on legal to sign off on the terms.",
            "Happy to jump on a call tomorrow morning if that's easier.",
            "The customer asked whether we can support batch exports as well.",
            "Please don't forward this outside the team yet.",
            "I'll send the final numbers once finance confirms them.",
            "Here's the summary: three blockers, two of them already fixed.");
    private static final List<String> JA_SUBJECTS = List.of("来週の打ち合わせについて", "見積書送付のご案内",
            "議事録の共有", "出張の日程調整", "新機能リリースのお知らせ", "ご確認のお願い", "資料の修正版",
            "年末年始の営業について");
    private static final List<String> JA_SENTENCES = List.of(
            "いつもお世話になっております。", "先日の打ち合わせではありがとうございました。",
            "資料を添付いたしましたので、ご確認をお願いいたします。", "来週の火曜日の午後はご都合いかがでしょうか。",
            "修正点については赤字で記載しております。", "何卒よろしくお願い申し上げます。",
            "ご不明な点がございましたら、お気軽にお問い合わせください。", "スケジュールに変更がありましたらご連絡ください。",
            "本件について社内で検討いたしました。", "引き続きどうぞよろしくお願いいたします。");

    private SeedText() {
    }

    static <T> T pick(SplittableRandom r, List<T> items) {
        return items.get(r.nextInt(items.size()));
    }

    static String subject(SplittableRandom r) {
        return pick(r, OPENERS) + " " + pick(r, TOPICS);
    }

    static String japaneseSubject(SplittableRandom r) {
        return pick(r, JA_SUBJECTS);
    }

    static String paragraph(SplittableRandom r, int sentences) {
        StringBuilder b = new StringBuilder();
        for (int i = 0; i < sentences; i++) {
            if (i > 0) {
                b.append(' ');
            }
            b.append(pick(r, SENTENCES));
        }
        return b.toString();
    }

    static String japaneseParagraph(SplittableRandom r, int sentences) {
        StringBuilder b = new StringBuilder();
        for (int i = 0; i < sentences; i++) {
            b.append(pick(r, JA_SENTENCES));
        }
        return b.toString();
    }

    static String body(SplittableRandom r, String greeting, String signature, int paragraphs) {
        StringBuilder b = new StringBuilder(greeting).append("\n\n");
        for (int i = 0; i < paragraphs; i++) {
            b.append(paragraph(r, 2 + r.nextInt(3))).append("\n\n");
        }
        return b.append("Best,\n").append(signature).append('\n').toString();
    }

    static String html(String text) {
        StringBuilder b = new StringBuilder("<html><body>");
        for (String para : text.split("\n\n")) {
            b.append("<p>").append(escape(para).replace("\n", "<br>")).append("</p>");
        }
        return b.append("</body></html>").toString();
    }

    static String escape(String s) {
        return s.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;").replace("\"", "&quot;");
    }
}

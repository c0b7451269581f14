package dev.agenttools.emulator.gmail;

import dev.agenttools.emulator.EmulatorConfig;

import java.time.Instant;
import java.util.IdentityHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;

/**
 * The per-JVM memo behind {@code Emulators}: each seed's generated messages and their parses (here, beside the
 * package-private generator and parser it uses). Thread-safe.
 */
public final class SeededMail {
    private record Key(long seed, int messages, Instant anchor, String user) {
    }

    private record Parsed(List<MailInput> inputs, Map<byte[], ParsedMessage> parses) {
    }

    private final Map<Key, Parsed> byKey = new ConcurrentHashMap<>();

    /** A new mailbox of its own over the memoized parses of {@code config}'s seed. */
    public Mailbox mailbox(EmulatorConfig config) {
        Parsed parsed = byKey.computeIfAbsent(
                new Key(config.seed(), config.seedMessages(), config.anchor(), config.userEmail()), key -> {
                    List<MailInput> inputs = SeedMailbox.generate(key.seed(), key.messages(), key.anchor(), key.user());
                    Map<byte[], ParsedMessage> parses = new IdentityHashMap<>();
                    for (MailInput in : inputs) {
                        parses.put(in.raw(), MimeParser.parse(in.raw()));
                    }
                    return new Parsed(List.copyOf(inputs), parses);
                });
        return Mailbox.load(config.userEmail(), parsed.inputs(), raw -> {
            ParsedMessage p = parsed.parses().get(raw);
            return p != null ? p : MimeParser.parse(raw);
        }, System.err::println);
    }
}

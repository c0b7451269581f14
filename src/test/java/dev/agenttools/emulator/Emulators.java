package dev.agenttools.emulator;

import dev.agenttools.emulator.gmail.Mailbox;
import dev.agenttools.emulator.gmail.SeededMail;
import org.junit.jupiter.api.extension.AfterAllCallback;
import org.junit.jupiter.api.extension.BeforeAllCallback;
import org.junit.jupiter.api.extension.ExtensionContext;

import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;

/**
 * Starts emulators for a test class and closes them after it. A seeded mailbox (1,200 messages by default) costs
 * 0.7 s to generate and parse on a warm idle JVM and several seconds on a busy one; here each seed is generated and
 * parsed once per test JVM (memoized in JUnit's root store) and every emulator gets its own mailbox over those
 * immutable parses, so a test may modify or trash mail without another test seeing it. Mailboxes loaded from files
 * are read as usual.
 *
 * <p>Use: {@code @RegisterExtension static final Emulators emulators = new Emulators();} then
 * {@code emulators.start(config)} in {@code @BeforeAll}, {@code @BeforeEach} or a test. An emulator a test closes
 * itself is simply closed again (a no-op) after the class.
 */
public final class Emulators implements BeforeAllCallback, AfterAllCallback {
    private static final ExtensionContext.Namespace NAMESPACE = ExtensionContext.Namespace.create(Emulators.class);
    private final List<Emulator> started = new CopyOnWriteArrayList<>();
    private volatile SeededMail seeds;

    @Override
    public void beforeAll(ExtensionContext context) {
        seeds = context.getRoot().getStore(NAMESPACE).computeIfAbsent(SeededMail.class);
    }

    @Override
    public void afterAll(ExtensionContext context) {
        RuntimeException failure = null;
        for (Emulator e : started) {
            try {
                e.close();
            } catch (RuntimeException ex) {
                failure = ex;
            }
        }
        started.clear();
        if (failure != null) {
            throw failure;
        }
    }

    /** Starts an emulator with this configuration; its seeded mailbox is generated and parsed once per JVM. */
    public Emulator start(EmulatorConfig config) {
        if (seeds == null) {
            throw new IllegalStateException("Emulators must be registered on a static field: "
                    + "@RegisterExtension static final Emulators emulators = new Emulators();");
        }
        Emulator emulator = config.mailbox().equals("seed")
                ? Emulator.start(config, seeds.mailbox(config)) : Emulator.start(config);
        started.add(emulator);
        return emulator;
    }

    /**
     * Starts serving a mailbox a test built (the subpackages' tests reach the package-private start this way); the
     * caller closes it.
     */
    public static Emulator serving(EmulatorConfig config, Mailbox mailbox) {
        return Emulator.start(config, mailbox);
    }

    /** The mailbox an emulator serves, for a test to compare with what the API answers. */
    public static Mailbox mailbox(Emulator emulator) {
        return emulator.mailbox();
    }

    /**
     * Makes one message unfetchable: it is still listed, but every messages.get of it (alone or in a batch) fails with
     * {@code status}: 400 "Invalid id value", 401, 403, 429 or a 5xx.
     */
    public static void failGets(Emulator emulator, String messageId, int status) {
        emulator.failGets(messageId, status);
    }

    /** An SSL context that trusts an emulator's self-signed certificate (the PEM that {@code --tls} writes). */
    public static javax.net.ssl.SSLContext trusting(java.nio.file.Path pem) throws Exception {
        java.security.KeyStore trust = java.security.KeyStore.getInstance(java.security.KeyStore.getDefaultType());
        trust.load(null, null);
        try (var in = java.nio.file.Files.newInputStream(pem)) {
            trust.setCertificateEntry("emulator",
                    java.security.cert.CertificateFactory.getInstance("X.509").generateCertificate(in));
        }
        var tmf = javax.net.ssl.TrustManagerFactory.getInstance(javax.net.ssl.TrustManagerFactory.getDefaultAlgorithm());
        tmf.init(trust);
        javax.net.ssl.SSLContext context = javax.net.ssl.SSLContext.getInstance("TLS");
        context.init(null, tmf.getTrustManagers(), null);
        return context;
    }
}

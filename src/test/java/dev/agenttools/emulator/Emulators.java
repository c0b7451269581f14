package dev.agenttools.emulator;

import com.fasterxml.jackson.databind.JsonNode;
import dev.agenttools.emulator.gmail.Mailbox;
import dev.agenttools.emulator.gmail.SeededMail;
import dev.agenttools.tool.Json;
import org.junit.jupiter.api.extension.AfterAllCallback;
import org.junit.jupiter.api.extension.BeforeAllCallback;
import org.junit.jupiter.api.extension.ExtensionContext;

import java.net.URI;
import java.net.URLDecoder;
import java.net.URLEncoder;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.KeyStore;
import java.security.cert.CertificateFactory;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import javax.net.ssl.SSLContext;
import javax.net.ssl.TrustManagerFactory;

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
    public static SSLContext trusting(Path pem) throws Exception {
        KeyStore trust = KeyStore.getInstance(KeyStore.getDefaultType());
        trust.load(null, null);
        try (var in = Files.newInputStream(pem)) {
            trust.setCertificateEntry("emulator",
                    CertificateFactory.getInstance("X.509").generateCertificate(in));
        }
        var tmf = TrustManagerFactory.getInstance(TrustManagerFactory.getDefaultAlgorithm());
        tmf.init(trust);
        SSLContext context = SSLContext.getInstance("TLS");
        context.init(null, tmf.getTrustManagers(), null);
        return context;
    }

    /** A user's sign-in at the emulated Google OAuth server: its access token and its refresh token. */
    public record SignedIn(String accessToken, String refreshToken) {
    }

    /**
     * Signs {@code address} in as a browser and an installed app would (consent with {@code login_hint}, the code
     * traded for tokens), with the Gmail and Calendar read scopes.
     */
    public static SignedIn signIn(Emulator emulator, String address) throws Exception {
        HttpClient http = HttpClient.newHttpClient();
        String redirect = "http://127.0.0.1:9/Callback";
        String scopes = "https://www.googleapis.com/auth/gmail.readonly https://www.googleapis.com/auth/calendar.readonly";
        String query = "client_id=c&response_type=code&scope=" + enc(scopes) + "&redirect_uri=" + enc(redirect)
                + "&login_hint=" + enc(address);
        var consent = http.send(HttpRequest.newBuilder(emulator.rootUri().resolve("o/oauth2/auth?" + query)).build(),
                HttpResponse.BodyHandlers.ofString());
        String location = consent.headers().firstValue("Location")
                .orElseThrow(() -> new IllegalStateException("no redirect from the consent page: " + consent.body()));
        String code = null;
        for (String pair : URI.create(location).getRawQuery().split("&")) {
            if (pair.startsWith("code=")) {
                code = URLDecoder.decode(pair.substring(5), StandardCharsets.UTF_8);
            }
        }
        var tokens = tokenRequest(emulator, "grant_type=authorization_code&redirect_uri=" + enc(redirect) + "&code=" + enc(code));
        return new SignedIn(tokens.get("access_token").asText(), tokens.get("refresh_token").asText());
    }

    /** A new access token for the same user, from its refresh token. */
    public static String refresh(Emulator emulator, String refreshToken) throws Exception {
        return tokenRequest(emulator, "grant_type=refresh_token&refresh_token=" + enc(refreshToken)).get("access_token").asText();
    }

    private static JsonNode tokenRequest(Emulator emulator, String form) throws Exception {
        var answer = HttpClient.newHttpClient().send(HttpRequest.newBuilder(emulator.rootUri().resolve("token"))
                .header("Content-Type", "application/x-www-form-urlencoded")
                .POST(HttpRequest.BodyPublishers.ofString(form + "&client_id=c&client_secret=s")).build(),
                HttpResponse.BodyHandlers.ofString());
        if (answer.statusCode() != 200) {
            throw new IllegalStateException("the token endpoint answered " + answer.statusCode() + ": " + answer.body());
        }
        return Json.MAPPER.readTree(answer.body());
    }

    private static String enc(String s) {
        return URLEncoder.encode(s, StandardCharsets.UTF_8);
    }
}

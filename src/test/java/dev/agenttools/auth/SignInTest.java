package dev.agenttools.auth;

import com.fasterxml.jackson.databind.JsonNode;
import com.google.api.client.auth.oauth2.Credential;
import com.google.api.client.auth.oauth2.StoredCredential;
import com.google.api.client.extensions.java6.auth.oauth2.AuthorizationCodeInstalledApp;
import com.google.api.client.http.javanet.NetHttpTransport;
import com.google.api.client.util.store.DataStore;
import com.google.api.client.util.store.FileDataStoreFactory;
import dev.agenttools.Tools;
import dev.agenttools.emulator.Emulator;
import dev.agenttools.emulator.EmulatorConfig;
import dev.agenttools.emulator.Emulators;
import dev.agenttools.gmail.GmailSettings;
import dev.agenttools.tool.Json;
import dev.agenttools.tool.ToolCall;
import dev.agenttools.tool.ToolException;
import dev.agenttools.tool.ToolRegistry;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;

import java.net.URI;
import java.net.URLDecoder;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.logging.Level;
import java.util.logging.LogRecord;
import java.util.logging.Logger;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * The whole installed-app sign-in, headless, against the emulator's OAuth endpoints: a "browser" that follows the
 * consent redirect to the loopback receiver, the stored refresh token, refresh under concurrent calls, revocation.
 */
class SignInTest {
    @RegisterExtension
    static final Emulators emulators = new Emulators();
    private static Emulator emulator;
    @TempDir
    Path dir;

    /** One emulator for the class: each test signs in afresh in its own folder and counts grants as differences. */
    @BeforeAll
    static void start() {
        emulator = emulators.start(EmulatorConfig.builder().latency(Duration.ofMillis(2)).jitter(Duration.ZERO)
                .handshake(Duration.ZERO).token("only-oauth-tokens-here").build());
    }

    /** What a person's browser does: load the consent page, which redirects to the app's loopback address. */
    static final AuthorizationCodeInstalledApp.Browser FOLLOWING_BROWSER = url -> {
        try {
            HttpClient.newBuilder().followRedirects(HttpClient.Redirect.ALWAYS).build()
                    .send(HttpRequest.newBuilder(URI.create(url)).build(), HttpResponse.BodyHandlers.discarding());
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    };

    private AuthSettings settings(String... scopes) throws Exception {
        Path secrets = dir.resolve("client_secret.json");
        Files.writeString(secrets, """
                {"installed": {"client_id": "1234-test.apps.googleusercontent.com", "client_secret": "GOCSPX-test",
                  "redirect_uris": ["http://localhost"], "auth_uri": "https://accounts.google.com/o/oauth2/auth",
                  "token_uri": "https://oauth2.googleapis.com/token"}}""");
        String root = emulator.rootUri().toString();
        AuthSettings s = AuthSettings.from(Map.of("AGENT_TOOLS_OAUTH_ROOT_URL", root,
                "AGENT_TOOLS_CLIENT_SECRETS", secrets.toString()), dir.resolve("config"));
        return scopes.length == 0 ? s : s.withScopes(List.of(scopes));
    }

    private ToolRegistry tools(AuthSettings auth) {
        return Tools.builder().gmail(GmailSettings.forRoot(emulator.rootUri().toString())).auth(auth).build();
    }

    @Test
    void signsInHeadlessAndStoresTheRefreshTokenForTheOwnerOnly() throws Exception {
        AuthSettings auth = settings();
        long signInsBefore = emulator.signIns();
        SignIn.Status status = SignIn.login(auth, new NetHttpTransport(), FOLLOWING_BROWSER);
        assertThat(status.signedIn()).isTrue();
        assertThat(status.hasRefreshToken()).isTrue();
        assertThat(status.scopes()).containsExactlyElementsOf(AuthSettings.DEFAULT_SCOPES);
        assertThat(status.clientId()).isEqualTo("1234-test.apps.googleusercontent.com");
        assertThat(status.toString()).doesNotContain("ya29").doesNotContain("1//");
        assertThat(emulator.signIns() - signInsBefore).isEqualTo(1);
        assertThat(PosixFilePermissions.toString(Files.getPosixFilePermissions(auth.storeDir()))).isEqualTo("rwx------");
        try (var files = Files.list(auth.storeDir())) {
            for (Path f : files.toList()) {
                assertThat(PosixFilePermissions.toString(Files.getPosixFilePermissions(f))).as(f.toString()).isEqualTo("rw-------");
            }
        }
        JsonNode emails = tools(auth).call(ToolCall.of("gmail.list-emails", Json.object().put("max_results", 3))).data().get("emails");
        assertThat(emails).hasSize(3);
    }

    @Test
    void concurrentCallsShareOneRefreshWhenTheTokenIsDue() throws Exception {
        AuthSettings auth = settings();
        SignIn.login(auth, new NetHttpTransport(), FOLLOWING_BROWSER);
        long refreshesBefore = emulator.tokenRefreshes();
        tools(auth).call(ToolCall.of("gmail.list-emails", Json.object().put("max_results", 1)));
        assertThat(emulator.tokenRefreshes() - refreshesBefore).as("a fresh access token is used as it is").isZero();
        // The stored access token now expires within the client's 60 s refresh margin, as it would for a process
        // started 59 minutes after the last one: the next process's calls must refresh it, once between them.
        DataStore<StoredCredential> store = StoredCredential.getDefaultDataStore(new FileDataStoreFactory(auth.storeDir().toFile()));
        StoredCredential stored = store.get(SignIn.USER);
        store.set(SignIn.USER, stored.setExpirationTimeMilliseconds(System.currentTimeMillis() + 30_000));
        ToolRegistry tools = tools(auth);
        try (var pool = Executors.newVirtualThreadPerTaskExecutor()) {
            List<Future<?>> calls = new ArrayList<>();
            for (int i = 0; i < 12; i++) {
                calls.add(pool.submit(() -> tools.call(ToolCall.of("gmail.list-emails", Json.object().put("max_results", 2)))));
            }
            for (Future<?> f : calls) {
                f.get();
            }
        }
        assertThat(emulator.tokenRefreshes() - refreshesBefore).isEqualTo(1);
        StoredCredential saved = StoredCredential.getDefaultDataStore(new FileDataStoreFactory(auth.storeDir().toFile())).get(SignIn.USER);
        assertThat(saved.getExpirationTimeMilliseconds()).as("the refreshed token is saved for the next process")
                .isGreaterThan(System.currentTimeMillis() + 60_000);
    }

    @Test
    void aRevokedSignInFailsWithWhatToRun() throws Exception {
        AuthSettings auth = settings();
        SignIn.login(auth, new NetHttpTransport(), FOLLOWING_BROWSER);
        String refresh = StoredCredential.getDefaultDataStore(new FileDataStoreFactory(auth.storeDir().toFile())).get(SignIn.USER).getRefreshToken();
        HttpClient.newHttpClient().send(HttpRequest.newBuilder(emulator.rootUri().resolve("revoke?token=" + refresh))
                .POST(HttpRequest.BodyPublishers.noBody()).build(), HttpResponse.BodyHandlers.discarding());
        assertThatThrownBy(() -> tools(auth).call(ToolCall.of("gmail.list-emails", Json.object())))
                .isInstanceOfSatisfying(ToolException.class, e -> {
                    assertThat(e.kind()).isEqualTo(ToolException.Kind.UNAUTHENTICATED);
                    assertThat(e.getMessage()).contains("agent-tools auth login").doesNotContain(refresh).doesNotContain("ya29");
                });
    }

    @Test
    void aSignInWithoutAGmailScopeSaysWhichScopeToAskFor() throws Exception {
        AuthSettings auth = settings(AuthSettings.CALENDAR_READONLY);
        SignIn.login(auth, new NetHttpTransport(), FOLLOWING_BROWSER);
        assertThatThrownBy(() -> tools(auth).call(ToolCall.of("gmail.list-emails", Json.object())))
                .isInstanceOfSatisfying(ToolException.class, e -> {
                    assertThat(e.kind()).as("signed in, but not for Gmail").isEqualTo(ToolException.Kind.PERMISSION_DENIED);
                    assertThat(e.getMessage()).contains("lacks this API's scope").contains("--scopes gmail.readonly");
                });
    }

    @Test
    void theCallsOwnAccessTokenWinsOverTheStoredSignIn() throws Exception {
        AuthSettings auth = settings();
        SignIn.login(auth, new NetHttpTransport(), FOLLOWING_BROWSER);
        assertThatThrownBy(() -> tools(auth).call(ToolCall.of("gmail.list-emails", Json.object().put("access_token", "wrong"))))
                .isInstanceOfSatisfying(ToolException.class, e -> assertThat(e.getMessage()).contains("HTTP 401").doesNotContain("wrong"));
    }

    @Test
    void logoutRevokesAtGoogleAndDeletesTheStoredSignIn() throws Exception {
        AuthSettings auth = settings();
        SignIn.login(auth, new NetHttpTransport(), FOLLOWING_BROWSER);
        assertThat(SignIn.logout(auth, new NetHttpTransport())).isTrue();
        assertThat(SignIn.status(auth).signedIn()).isFalse();
        assertThatThrownBy(() -> tools(auth).call(ToolCall.of("gmail.list-emails", Json.object())))
                .isInstanceOfSatisfying(ToolException.class, e -> assertThat(e.getMessage()).contains("auth login"));
    }

    @Test
    void theConsentUrlCarriesAStateAndAnS256PkceChallengeThatTheTokenRequestAnswers() throws Exception {
        AuthSettings auth = settings();
        List<String> urls = new ArrayList<>();
        long signInsBefore = emulator.signIns();
        SignIn.login(auth, new NetHttpTransport(), url -> {
            urls.add(url);
            FOLLOWING_BROWSER.browse(url);
        });
        Map<String, String> query = query(URI.create(urls.getFirst()));
        assertThat(query.get("state")).as("state").matches("[A-Za-z0-9_-]{43}");
        assertThat(query.get("code_challenge")).as("code_challenge").matches("[A-Za-z0-9_-]{43}");
        assertThat(query.get("code_challenge_method")).isEqualTo("S256");
        assertThat(query.get("access_type")).isEqualTo("offline");
        // the emulator refuses the code without the matching code_verifier, so this also proves the verifier was sent
        assertThat(emulator.signIns() - signInsBefore).isEqualTo(1);
        assertThat(SignIn.status(auth).signedIn()).isTrue();
    }

    @Test
    void aRedirectWithAnotherStateOrNoneIsRefused() throws Exception {
        AuthSettings auth = settings();
        long signInsBefore = emulator.signIns();
        assertThatThrownBy(() -> SignIn.login(auth, new NetHttpTransport(), redirectRewritten("state=forged")))
                .isInstanceOf(AuthException.class).hasMessageContaining("a different state than this sign-in sent")
                .hasMessageContaining("agent-tools auth login");
        assertThatThrownBy(() -> SignIn.login(auth, new NetHttpTransport(), redirectRewritten("")))
                .isInstanceOf(AuthException.class).hasMessageContaining("carried no state");
        assertThat(emulator.signIns() - signInsBefore).as("no code was traded").isZero();
        assertThat(SignIn.status(auth).signedIn()).isFalse();
    }

    /** A browser whose redirect to the loopback address has its state replaced (as a forged answer would be). */
    private static AuthorizationCodeInstalledApp.Browser redirectRewritten(String stateReplacement) {
        return url -> {
            try {
                HttpClient client = HttpClient.newHttpClient();
                String location = client.send(HttpRequest.newBuilder(URI.create(url)).build(), HttpResponse.BodyHandlers.discarding())
                        .headers().firstValue("Location").orElseThrow();
                String forged = location.replaceAll("&?state=[^&]*", stateReplacement.isEmpty() ? "" : "&" + stateReplacement);
                client.send(HttpRequest.newBuilder(URI.create(forged)).build(), HttpResponse.BodyHandlers.discarding());
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        };
    }

    private static Map<String, String> query(URI uri) {
        Map<String, String> params = new HashMap<>();
        for (String pair : uri.getRawQuery().split("&")) {
            int eq = pair.indexOf('=');
            params.put(pair.substring(0, eq), URLDecoder.decode(pair.substring(eq + 1), StandardCharsets.UTF_8));
        }
        return params;
    }

    @Test
    void aMissingClientSecretsFileSaysWhereToGetOne() throws Exception {
        AuthSettings auth = settings().withClientSecrets(dir.resolve("nope.json"));
        assertThatThrownBy(() -> SignIn.login(auth, new NetHttpTransport(), FOLLOWING_BROWSER))
                .isInstanceOf(AuthException.class).hasMessageContaining("does not exist").hasMessageContaining("--client-secrets");
        assertThatThrownBy(() -> SignIn.login(settings().withClientSecrets(null), new NetHttpTransport(), FOLLOWING_BROWSER))
                .isInstanceOf(AuthException.class).hasMessageContaining("--client-secrets");
    }

    @Test
    void onlyTheRefreshFailuresStackTraceIsDroppedAndOnlyOnceACredentialIsBuilt(@TempDir Path home) {
        Logger log = Logger.getLogger(
                Credential.class.getName());
        assertThat(log.getLevel()).as("the library's logging is left on").isNotEqualTo(Level.OFF);
        AuthSettings nobody = AuthSettings.from(Map.of(), home);
        assertThat(SignIn.credential(nobody, new NetHttpTransport())).isEmpty();
        assertThat(log.getFilter()).isNotNull();
        assertThat(log.getFilter().isLoggable(new LogRecord(Level.SEVERE,
                "unable to refresh token"))).isFalse();
        assertThat(log.getFilter().isLoggable(new LogRecord(Level.WARNING,
                "anything else"))).isTrue();
    }
}

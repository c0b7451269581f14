package dev.agenttools.auth;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import com.google.api.client.auth.oauth2.AuthorizationCodeFlow;
import com.google.api.client.auth.oauth2.AuthorizationCodeRequestUrl;
import com.google.api.client.auth.oauth2.BearerToken;
import com.google.api.client.auth.oauth2.ClientParametersAuthentication;
import com.google.api.client.auth.oauth2.Credential;
import com.google.api.client.auth.oauth2.DataStoreCredentialRefreshListener;
import com.google.api.client.auth.oauth2.StoredCredential;
import com.google.api.client.auth.oauth2.TokenResponseException;
import com.google.api.client.extensions.java6.auth.oauth2.AuthorizationCodeInstalledApp;
import com.google.api.client.googleapis.auth.oauth2.GoogleClientSecrets;
import com.google.api.client.http.GenericUrl;
import com.google.api.client.http.HttpTransport;
import com.google.api.client.http.UrlEncodedContent;
import com.google.api.client.json.gson.GsonFactory;
import com.google.api.client.util.store.DataStore;
import com.google.api.client.util.store.FileDataStoreFactory;

import java.io.IOException;
import java.io.Reader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.attribute.PosixFilePermissions;
import java.security.SecureRandom;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Base64;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.logging.Logger;

/**
 * Google's installed-app sign-in on the official OAuth client: the consent page in a browser with PKCE (S256) and a
 * random {@code state}, the code caught on a loopback address ({@link LoopbackReceiver}, which checks the state), the
 * refresh token kept in an owner-only folder
 * ({@link FileDataStoreFactory}'s {@code StoredCredential}). Beside it, {@code account.json} (also owner-only)
 * keeps what a refresh needs: the OAuth client and the endpoints. Tokens never reach output or logs.
 */
public final class SignIn {
    static final String USER = "default";
    private static final String ACCOUNT_FILE = "account.json";
    private static final ObjectMapper JSON = new ObjectMapper();
    /**
     * Where {@link Credential} logs. When a refresh fails after Gmail answered 401, {@code Credential.handleResponse}
     * logs "unable to refresh token" as SEVERE with a stack trace on stderr, then lets the 401 through; the tools report
     * that 401 themselves, in one line that says what to run. So {@link #credential} drops that one record (every
     * other record of the library still logs), and only in a process that builds a refreshing credential. Kept in a
     * field: java.util.logging holds loggers weakly, and a collected logger would lose the filter.
     */
    private static final Logger CREDENTIAL_LOG = Logger.getLogger(Credential.class.getName());
    private static final String REFRESH_FAILED = "unable to refresh token";

    private SignIn() {
    }

    /** What `auth status` shows: never a token. */
    public record Status(boolean signedIn, String clientId, List<String> scopes, Instant accessTokenExpiresAt,
                         boolean hasRefreshToken, Instant signedInAt, Path store) {
    }

    /**
     * Signs in (replacing any earlier sign-in) and stores the refresh token.
     *
     * @param browser opens the consent URL; the default prints it and tries the system browser
     */
    public static Status login(AuthSettings settings, HttpTransport transport, AuthorizationCodeInstalledApp.Browser browser)
            throws IOException {
        GoogleClientSecrets secrets = clientSecrets(settings);
        if (settings.scopes().isEmpty()) {
            throw new AuthException("no scopes to ask for: pass --scopes gmail.readonly (and calendar.readonly)");
        }
        FileDataStoreFactory store = store(settings);
        DataStore<StoredCredential> credentials = StoredCredential.getDefaultDataStore(store);
        credentials.delete(USER); // a login always asks again
        // The library's plain flow, not GoogleAuthorizationCodeFlow: that one builds its consent URL without the PKCE
        // challenge (its newAuthorizationUrl skips the parent's), while the token request would still send the verifier.
        AuthorizationCodeFlow flow = new AuthorizationCodeFlow.Builder(BearerToken.authorizationHeaderAccessMethod(), transport,
                GsonFactory.getDefaultInstance(), new GenericUrl(settings.tokenUrl()),
                new ClientParametersAuthentication(secrets.getDetails().getClientId(), secrets.getDetails().getClientSecret()),
                secrets.getDetails().getClientId(), settings.authUrl())
                .setScopes(settings.scopes()).setCredentialDataStore(credentials)
                .enablePKCE() // code_challenge (S256) in the consent URL, code_verifier in the token request
                .build();
        String state = newState();
        LoopbackReceiver receiver = new LoopbackReceiver(state);
        Credential credential;
        try {
            String redirectUri = receiver.getRedirectUri();
            AuthorizationCodeRequestUrl consent = flow.newAuthorizationUrl().setRedirectUri(redirectUri).setState(state);
            consent.set("access_type", "offline"); // a refresh token, as installed apps need
            browser.browse(consent.build());
            String code = receiver.waitForCode(); // refuses an answer without this sign-in's state
            credential = flow.createAndStoreCredential(flow.newTokenRequest(code).setRedirectUri(redirectUri).execute(), USER);
        } catch (TokenResponseException e) {
            throw new AuthException("Google refused the sign-in (" + describe(e) + "): check the client secrets file and try "
                    + "'agent-tools auth login' again", e);
        } finally {
            receiver.stop();
        }
        if (credential.getRefreshToken() == null) {
            throw new AuthException("the sign-in returned no refresh token: revoke the app's access in your Google account, "
                    + "then run 'agent-tools auth login' again");
        }
        restrictFiles(settings.storeDir());
        ObjectNode account = JSON.createObjectNode();
        account.put("client_id", secrets.getDetails().getClientId());
        account.put("client_secret", secrets.getDetails().getClientSecret());
        account.put("token_url", settings.tokenUrl());
        account.put("revoke_url", settings.revokeUrl());
        account.set("scopes", JSON.valueToTree(settings.scopes()));
        account.put("signed_in_at", Instant.now().toString());
        writeOwnerOnly(settings.storeDir().resolve(ACCOUNT_FILE), JSON.writerWithDefaultPrettyPrinter().writeValueAsBytes(account));
        return status(settings);
    }

    /** 32 random bytes, base64url: the {@code state} that ties the redirect to this sign-in. */
    private static String newState() {
        byte[] b = new byte[32];
        new SecureRandom().nextBytes(b);
        return Base64.getUrlEncoder().withoutPadding().encodeToString(b);
    }

    private static GoogleClientSecrets clientSecrets(AuthSettings settings) throws IOException {
        if (settings.clientSecrets() == null) {
            throw new AuthException("no OAuth client: pass --client-secrets FILE (the Desktop-app client JSON from Google Cloud "
                    + "Console, APIs & Services > Credentials) or set AGENT_TOOLS_CLIENT_SECRETS");
        }
        try (Reader in = Files.newBufferedReader(settings.clientSecrets(), StandardCharsets.UTF_8)) {
            GoogleClientSecrets secrets = GoogleClientSecrets.load(GsonFactory.getDefaultInstance(), in);
            if (secrets.getDetails() == null || secrets.getDetails().getClientId() == null) {
                throw new AuthException(settings.clientSecrets() + " is not an OAuth client file: it needs an \"installed\" "
                        + "(Desktop app) section with client_id and client_secret");
            }
            return secrets;
        } catch (NoSuchFileException e) {
            throw new AuthException("client secrets file " + settings.clientSecrets() + " does not exist: download the "
                    + "Desktop-app OAuth client JSON from Google Cloud Console and pass its path with --client-secrets");
        } catch (IllegalArgumentException e) {
            throw new AuthException(settings.clientSecrets() + " is not valid client secrets JSON: " + e.getMessage());
        }
    }

    /** The stored sign-in as a self-refreshing credential, or empty when nobody signed in. */
    public static Optional<Credential> credential(AuthSettings settings, HttpTransport transport) {
        quietRefreshFailures();
        try {
            Path accountFile = settings.storeDir().resolve(ACCOUNT_FILE);
            if (!Files.isRegularFile(accountFile)) {
                return Optional.empty();
            }
            StoredCredential stored = StoredCredential.getDefaultDataStore(store(settings)).get(USER);
            if (stored == null || stored.getRefreshToken() == null) {
                return Optional.empty();
            }
            JsonNode account = JSON.readTree(accountFile.toFile());
            DataStore<StoredCredential> credentials = StoredCredential.getDefaultDataStore(store(settings));
            // Credential refreshes under its own lock: concurrent calls that find the token expiring share one refresh;
            // each new access token is saved, so the next process starts with it instead of refreshing again.
            Credential credential = new Credential.Builder(BearerToken.authorizationHeaderAccessMethod())
                    .addRefreshListener(new DataStoreCredentialRefreshListener(USER, credentials))
                    .setTransport(transport).setJsonFactory(GsonFactory.getDefaultInstance())
                    .setTokenServerUrl(new GenericUrl(account.get("token_url").asText()))
                    .setClientAuthentication(new ClientParametersAuthentication(account.get("client_id").asText(),
                            account.get("client_secret").asText()))
                    .build();
            credential.setAccessToken(stored.getAccessToken());
            credential.setRefreshToken(stored.getRefreshToken());
            credential.setExpirationTimeMilliseconds(stored.getExpirationTimeMilliseconds());
            return Optional.of(credential);
        } catch (IOException e) {
            throw new AuthException("cannot read the stored sign-in in " + settings.storeDir() + ": " + e.getMessage()
                    + "; run 'agent-tools auth login' again", e);
        }
    }

    /** Drops {@link Credential}'s stack trace of a failed refresh (see {@link #CREDENTIAL_LOG}); idempotent. */
    private static synchronized void quietRefreshFailures() {
        if (CREDENTIAL_LOG.getFilter() == null) {
            CREDENTIAL_LOG.setFilter(r -> !REFRESH_FAILED.equals(r.getMessage()));
        }
    }

    public static Status status(AuthSettings settings) throws IOException {
        Path accountFile = settings.storeDir().resolve(ACCOUNT_FILE);
        StoredCredential stored = Files.isDirectory(settings.storeDir())
                ? StoredCredential.getDefaultDataStore(store(settings)).get(USER) : null;
        if (stored == null || !Files.isRegularFile(accountFile)) {
            return new Status(false, null, List.of(), null, false, null, settings.storeDir());
        }
        JsonNode account = JSON.readTree(accountFile.toFile());
        List<String> scopes = new ArrayList<>();
        account.path("scopes").forEach(s -> scopes.add(s.asText()));
        Long expires = stored.getExpirationTimeMilliseconds();
        return new Status(true, account.path("client_id").asText(null), scopes, expires == null ? null : Instant.ofEpochMilli(expires),
                stored.getRefreshToken() != null, Instant.parse(account.path("signed_in_at").asText(Instant.EPOCH.toString())),
                settings.storeDir());
    }

    /** Revokes the refresh token at Google (best effort) and deletes the stored sign-in; true when Google confirmed. */
    public static boolean logout(AuthSettings settings, HttpTransport transport) throws IOException {
        Path accountFile = settings.storeDir().resolve(ACCOUNT_FILE);
        boolean revoked = false;
        if (Files.isDirectory(settings.storeDir())) {
            DataStore<StoredCredential> credentials = StoredCredential.getDefaultDataStore(store(settings));
            StoredCredential stored = credentials.get(USER);
            if (stored != null && stored.getRefreshToken() != null && Files.isRegularFile(accountFile)) {
                String revokeUrl = JSON.readTree(accountFile.toFile()).path("revoke_url").asText(settings.revokeUrl());
                try {
                    var response = transport.createRequestFactory().buildPostRequest(new GenericUrl(revokeUrl),
                            new UrlEncodedContent(Map.of("token", stored.getRefreshToken()))).setThrowExceptionOnExecuteError(false).execute();
                    revoked = response.isSuccessStatusCode();
                    response.disconnect();
                } catch (IOException e) {
                    revoked = false; // offline: the local copy still goes
                }
            }
            credentials.delete(USER);
        }
        Files.deleteIfExists(accountFile);
        return revoked;
    }

    /** FileDataStoreFactory makes its folder owner-only but leaves its file to the umask: tighten it too. */
    private static void restrictFiles(Path dir) throws IOException {
        try (var files = Files.list(dir)) {
            for (Path f : files.toList()) {
                try {
                    Files.setPosixFilePermissions(f, PosixFilePermissions.fromString("rw-------"));
                } catch (UnsupportedOperationException notPosix) {
                    return; // Windows: the folder's ACL, set by FileDataStoreFactory, protects it
                }
            }
        }
    }

    private static FileDataStoreFactory store(AuthSettings settings) throws IOException {
        Files.createDirectories(settings.storeDir());
        // FileDataStoreFactory restricts the folder and its files to the owner
        return new FileDataStoreFactory(settings.storeDir().toFile());
    }

    private static void writeOwnerOnly(Path file, byte[] bytes) throws IOException {
        Path tmp = file.resolveSibling(file.getFileName() + ".tmp");
        Files.deleteIfExists(tmp);
        try {
            Files.createFile(tmp, PosixFilePermissions.asFileAttribute(PosixFilePermissions.fromString("rw-------")));
        } catch (UnsupportedOperationException notPosix) {
            Files.createFile(tmp);
        }
        Files.write(tmp, bytes);
        Files.move(tmp, file, StandardCopyOption.REPLACE_EXISTING, StandardCopyOption.ATOMIC_MOVE);
    }

    private static String describe(TokenResponseException e) {
        return e.getDetails() == null ? "HTTP " + e.getStatusCode()
                : e.getDetails().getError() + (e.getDetails().getErrorDescription() == null ? "" : ": " + e.getDetails().getErrorDescription());
    }
}

package dev.agenttools.server.oauth;

import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Path;

/** The store's promises on one SQLite file that two instances (two connections) share. */
class SqliteOAuthStoreTest extends OAuthStoreContract {
    @TempDir
    Path dir;
    private Path file;
    private int n;

    @Override
    void newPlace() {
        file = dir.resolve("oauth-" + n++ + ".db");
    }

    @Override
    OAuthStore open() throws Exception {
        return new SqliteOAuthStore(file);
    }
}

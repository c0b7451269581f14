package dev.agenttools.store;

import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.Statement;

/**
 * Files that belong to someone else's program, for the tests that point a store's path at them through a link (the
 * mail index's, the call store's): their content and mode must come out as they went in.
 */
public final class ForeignFiles {
    private ForeignFiles() {
    }

    /** A plain file with a mode of its own ({@code rw-r--r--}), under {@code dir/elsewhere}. */
    public static Path plainFile(Path dir) throws Exception {
        Path f = Files.createDirectories(dir.resolve("elsewhere")).resolve("notes.txt");
        Files.writeString(f, "precious notes\n");
        Files.setPosixFilePermissions(f, PosixFilePermissions.fromString("rw-r--r--"));
        return f;
    }

    /** Another program's SQLite database with one table of its own ({@code their_table}), under {@code dir/elsewhere}. */
    public static Path theirDatabase(Path dir) throws Exception {
        Path db = Files.createDirectories(dir.resolve("elsewhere")).resolve("theirs.db");
        try (Connection c = DriverManager.getConnection("jdbc:sqlite:" + db); Statement s = c.createStatement()) {
            s.execute("CREATE TABLE their_table (x TEXT)");
            s.execute("INSERT INTO their_table VALUES ('theirs')");
        }
        Files.setPosixFilePermissions(db, PosixFilePermissions.fromString("rw-rw-r--"));
        return db;
    }
}

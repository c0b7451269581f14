package dev.agenttools.store;

import java.io.IOException;
import java.nio.file.FileAlreadyExistsException;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.nio.file.attribute.FileAttribute;
import java.nio.file.attribute.PosixFileAttributes;
import java.nio.file.attribute.PosixFilePermission;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.Set;

/**
 * The folder that holds one of the user's local stores (the call store, the mail index, their side files), checked
 * before any file in it is opened: the user's own, writable by nobody else, and resolved to its real path. Files in
 * it are never reached through a symbolic link: a store made here is created owner-only in one step (never chmod-ed
 * afterwards, which would follow a link), and a link where a store or a side file should be is refused, its target
 * untouched. Links in the folder's own path (a home on {@code /var/home}) are the user's set-up and are followed
 * once, here.
 *
 * <p>Why others must not write the folder: SQLite opens the journal beside a database by name, so whoever can make
 * files there can plant one to read the pages written through it or to roll foreign pages into the database. A
 * group-writable folder is accepted when its group is the user's private group (the group named as the user, which
 * a umask of 002 gives on systems with user private groups). On a file system without POSIX permissions (Windows)
 * its own ACLs apply and only the link checks are made.
 */
public final class PrivateFolder {
    private static final FileAttribute<Set<PosixFilePermission>> OWNER_ONLY_DIR =
            PosixFilePermissions.asFileAttribute(PosixFilePermissions.fromString("rwx------"));
    private static final FileAttribute<Set<PosixFilePermission>> OWNER_ONLY_FILE =
            PosixFilePermissions.asFileAttribute(PosixFilePermissions.fromString("rw-------"));

    private final Path real;

    private PrivateFolder(Path real) {
        this.real = real;
    }

    /**
     * The folder of {@code file}: created owner-only (0700, with any missing parent) when missing, else checked.
     *
     * @throws IOException naming the folder when it cannot be made, is not a folder, belongs to someone else or
     *                     others may write it
     */
    public static PrivateFolder of(Path file) throws IOException {
        Path dir = file.toAbsolutePath().getParent();
        if (dir == null) {
            throw new IOException(file + " has no folder");
        }
        if (!Files.isDirectory(dir)) {
            try {
                Files.createDirectories(dir, OWNER_ONLY_DIR);
            } catch (UnsupportedOperationException e) {
                Files.createDirectories(dir); // no POSIX permissions here
            } catch (FileAlreadyExistsException e) {
                // a file, or a link to nothing, where the folder should be: said below
            }
        }
        Path real;
        try {
            real = dir.toRealPath();
        } catch (NoSuchFileException e) {
            throw new IOException("the folder " + dir + " of " + file.getFileName() + " does not exist (a link to nothing?)", e);
        }
        if (!Files.isDirectory(real, LinkOption.NOFOLLOW_LINKS)) {
            throw new IOException(dir + " is not a folder, so " + file.getFileName() + " cannot be kept there");
        }
        Owner owner = Owner.of(real);
        if (owner == null) {
            return new PrivateFolder(real); // no POSIX owners here
        }
        if (!owner.isMe()) {
            throw new IOException("the folder " + real + " belongs to " + owner.name() + ", not to you (" + Me.NAME
                    + "); agent-tools keeps its stores only in a folder of your own");
        }
        Set<PosixFilePermission> mode = owner.mode();
        boolean othersWrite = mode.contains(PosixFilePermission.OTHERS_WRITE);
        boolean groupWrites = mode.contains(PosixFilePermission.GROUP_WRITE) && !owner.privateGroup();
        if (othersWrite || groupWrites) {
            throw new IOException("the folder " + real + " has mode " + PosixFilePermissions.toString(mode) + " (group "
                    + owner.group() + "): others may make files in it, so agent-tools keeps no store there"
                    + " (chmod go-w it, or choose a folder of your own)");
        }
        return new PrivateFolder(real);
    }

    /** The folder's real path. */
    Path path() {
        return real;
    }

    /**
     * The store {@code name} in this folder, by its real path: created empty and owner-only (0600) in one step when
     * missing; an existing one must be a regular file of the user's, not a symbolic link. Side files SQLite keeps
     * beside it ({@code sideSuffixes}, such as {@code -journal}) must not be links either when they exist.
     *
     * @throws IOException naming the path that is a link, not a regular file, or someone else's
     */
    Path store(String name, String... sideSuffixes) throws IOException {
        Path file = real.resolve(name);
        try {
            try {
                Files.createFile(file, OWNER_ONLY_FILE); // O_CREAT|O_EXCL: never through a link
            } catch (UnsupportedOperationException e) {
                Files.createFile(file);
            }
        } catch (FileAlreadyExistsException e) {
            checkRegular(file);
        }
        for (String suffix : sideSuffixes) {
            Path side = real.resolve(name + suffix);
            if (Files.exists(side, LinkOption.NOFOLLOW_LINKS)) {
                checkRegular(side);
            }
        }
        return file;
    }

    /** Throws, naming {@code p}, unless it is a regular file of the user's (a symbolic link never is). */
    static void checkRegular(Path p) throws IOException {
        if (Files.isSymbolicLink(p)) {
            throw new IOException(p + " is a symbolic link; agent-tools does not follow links to its stores"
                    + " (remove the link, or point the setting at the file itself)");
        }
        if (!Files.isRegularFile(p, LinkOption.NOFOLLOW_LINKS)) {
            throw new IOException(p + " is not a regular file");
        }
        Owner owner = Owner.of(p);
        if (owner != null && !owner.isMe()) {
            throw new IOException(p + " belongs to " + owner.name() + ", not to you (" + Me.NAME + ")");
        }
    }

    /** Who a file or folder belongs to (not through a link), and its mode. */
    private record Owner(int uid, int gid, String name, String group, Set<PosixFilePermission> mode) {
        /** Null where the file system has no POSIX owners. */
        static Owner of(Path p) throws IOException {
            try {
                var unix = Files.readAttributes(p, "unix:uid,gid", LinkOption.NOFOLLOW_LINKS);
                PosixFileAttributes posix = Files.readAttributes(p, PosixFileAttributes.class, LinkOption.NOFOLLOW_LINKS);
                return new Owner((Integer) unix.get("uid"), (Integer) unix.get("gid"), posix.owner().getName(),
                        posix.group().getName(), posix.permissions());
            } catch (UnsupportedOperationException | IllegalArgumentException e) {
                return null;
            }
        }

        /** Compared by uid, not by name: a uid with no entry in the password file has none. */
        boolean isMe() {
            return Integer.toUnsignedLong(uid) == Me.UID; // the JDK reads uid_t into an int
        }

        /** The user's private group: their primary group, named as they are. */
        boolean privateGroup() {
            return Integer.toUnsignedLong(gid) == Me.GID && group.equals(Me.NAME);
        }
    }

    /** This process's user, loaded when a store is first checked (never on Windows, where there are no owners). */
    private static final class Me {
        private static final com.sun.security.auth.module.UnixSystem SYSTEM = new com.sun.security.auth.module.UnixSystem();
        static final long UID = SYSTEM.getUid();
        static final long GID = SYSTEM.getGid();
        static final String NAME = String.valueOf(SYSTEM.getUsername());
    }
}

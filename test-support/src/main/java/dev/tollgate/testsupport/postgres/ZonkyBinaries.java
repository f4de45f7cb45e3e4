package dev.tollgate.testsupport.postgres;

import io.zonky.test.db.postgres.embedded.DefaultPostgresBinaryResolver;
import java.io.ByteArrayInputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.file.DirectoryNotEmptyException;
import java.nio.file.FileAlreadyExistsException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.attribute.PosixFilePermission;
import java.nio.file.attribute.PosixFilePermissions;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.HexFormat;
import java.util.Set;
import org.apache.commons.compress.archivers.tar.TarArchiveEntry;
import org.apache.commons.compress.archivers.tar.TarArchiveInputStream;
import org.tukaani.xz.XZInputStream;

/**
 * Unpacks the PostgreSQL archive that zonky's binaries artifact ships (the one zonky itself would use) into
 * a world-readable directory shared by every JVM on the machine. commons-compress and xz come with zonky.
 */
final class ZonkyBinaries {

    private static Path extracted;

    private ZonkyBinaries() {
    }

    /** The installation directory, with {@code bin/initdb}, {@code bin/pg_ctl} and {@code bin/postgres}. */
    static synchronized Path extracted() {
        if (extracted != null && Files.isExecutable(extracted.resolve("bin/postgres"))) {
            return extracted;
        }
        try {
            byte[] archive = archive();
            Path parent = Path.of(System.getProperty("java.io.tmpdir"), "tollgate-postgres-binaries");
            Files.createDirectories(parent);
            Path target = parent.resolve(digest(archive));
            if (!Files.isExecutable(target.resolve("bin/postgres"))) {
                Path staging = Files.createTempDirectory(parent, "unpacking-");
                try {
                    unpack(archive, staging);
                    // Other users (the one PostgreSQL runs as) must be able to read and run it.
                    Files.setPosixFilePermissions(staging, PosixFilePermissions.fromString("rwxr-xr-x"));
                    Files.move(staging, target, StandardCopyOption.ATOMIC_MOVE);
                } catch (FileAlreadyExistsException | DirectoryNotEmptyException anotherJvmWasFaster) {
                    EmbeddedSettings.deleteRecursively(staging);
                }
            }
            extracted = target;
            return target;
        } catch (IOException e) {
            throw new UncheckedIOException("could not unpack zonky's PostgreSQL binaries", e);
        }
    }

    private static byte[] archive() throws IOException {
        // The names zonky uses when it resolves its own binaries.
        String arch = "amd64".equals(System.getProperty("os.arch")) ? "x86_64" : System.getProperty("os.arch");
        try (InputStream in = DefaultPostgresBinaryResolver.INSTANCE.getPgBinary("Linux", arch)) {
            return in.readAllBytes();
        }
    }

    private static String digest(byte[] archive) {
        try {
            return HexFormat.of().formatHex(MessageDigest.getInstance("SHA-256").digest(archive), 0, 8);
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException(e);
        }
    }

    private static void unpack(byte[] archive, Path target) throws IOException {
        try (TarArchiveInputStream tar = new TarArchiveInputStream(new XZInputStream(new ByteArrayInputStream(archive)))) {
            TarArchiveEntry entry;
            while ((entry = tar.getNextEntry()) != null) {
                Path path = target.resolve(entry.getName()).normalize();
                if (!path.startsWith(target)) {
                    throw new IOException("archive entry outside the target: " + entry.getName());
                }
                if (entry.isDirectory()) {
                    Files.createDirectories(path);
                    continue;
                }
                Files.createDirectories(path.getParent());
                if (entry.isSymbolicLink()) {
                    Files.createSymbolicLink(path, Path.of(entry.getLinkName()));
                } else if (entry.isLink()) {
                    Files.createLink(path, target.resolve(entry.getLinkName()));
                } else {
                    Files.copy(tar, path, StandardCopyOption.REPLACE_EXISTING);
                    Files.setPosixFilePermissions(path, permissions(entry.getMode()));
                }
            }
        }
    }

    private static Set<PosixFilePermission> permissions(int mode) {
        StringBuilder text = new StringBuilder();
        String letters = "rwxrwxrwx";
        for (int bit = 8; bit >= 0; bit--) {
            text.append((mode & (1 << bit)) != 0 ? letters.charAt(8 - bit) : '-');
        }
        return PosixFilePermissions.fromString(text.toString());
    }
}

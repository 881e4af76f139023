package dev.seqvfs.nio;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.net.URI;
import java.nio.file.FileSystem;
import java.nio.file.FileSystemNotFoundException;
import java.nio.file.FileSystems;
import java.nio.file.Files;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * Bad input to {@code FileSystems.newFileSystem(URI, env)} and to the builder: each case is an
 * {@link IllegalArgumentException} whose message names the option or the URI, and no file system is
 * made or registered (the name stays free). Before, {@code seqvfs://x/sub?a=b} made {@code
 * seqvfs://x/} with its path and query ignored, {@code size=-1} was accepted, a non-numeric {@code
 * uid} was a bare {@code NumberFormatException} naming nothing, and {@code readOnly=yes} was a
 * silent {@code false}.
 */
class ProviderBadInputTest {
    private static final String NAME = "bad-input-test";

    private static IllegalArgumentException refused(String uri, Map<String, ?> env) {
        IllegalArgumentException e =
                assertThrows(
                        IllegalArgumentException.class,
                        () -> FileSystems.newFileSystem(URI.create(uri), env));
        assertThrows(
                FileSystemNotFoundException.class,
                () -> FileSystems.getFileSystem(URI.create("seqvfs://" + NAME + "/")),
                "nothing registered after " + e.getMessage());
        return e;
    }

    private static void refusedNaming(String key, Object value, String why) {
        Map<String, Object> env = new HashMap<>();
        env.put(key, value);
        IllegalArgumentException e = refused("seqvfs://" + NAME + "/", env);
        assertTrue(
                e.getMessage().contains("seqvfs option " + key) && e.getMessage().contains(why),
                key + "=" + value + ": " + e.getMessage());
    }

    @Test
    void envValuesOfTheWrongKind_areRefusedNamingTheOption() {
        refusedNaming("uid", "abc", "not a number");
        refusedNaming("uid", -1, "negative");
        refusedNaming("gid", "1.5", "not a number");
        refusedNaming("gid", 2.5, "not an int");
        refusedNaming("groups", "1,,2", "not a number");
        refusedNaming("groups", List.of(1, -3), "negative");
        refusedNaming("umask", 01000, "not in 0 to 0777");
        refusedNaming("umask", "x", "not a number");
        refusedNaming("size", -1, "negative");
        refusedNaming("size", "10G", "not a number");
        refusedNaming("nr_inodes", -5L, "negative");
        refusedNaming("readOnly", "yes", "not true or false");
        refusedNaming("proc", 1, "not true or false");
        refusedNaming("engine", "an engine", "not a SeqVfs");
        refusedNaming("uid", null, "no value");
    }

    @Test
    void unknownOption_isRefusedNamingIt() {
        IllegalArgumentException e = refused("seqvfs://" + NAME + "/", Map.of("sise", 4096));
        assertEquals("unknown seqvfs option: sise", e.getMessage());
    }

    @Test
    void uriThatIsMoreThanAFileSystemName_isRefusedNamingIt() {
        for (String uri :
                List.of(
                        "seqvfs://" + NAME + "/sub",
                        "seqvfs://" + NAME + "/?a=b",
                        "seqvfs://" + NAME + "/#frag",
                        "seqvfs://" + NAME + ":8080/",
                        "seqvfs://me@" + NAME + "/")) {
            IllegalArgumentException e = refused(uri, Map.of());
            assertTrue(e.getMessage().contains(uri), uri + ": " + e.getMessage());
        }
    }

    @Test
    void goodValuesInEveryForm_makeTheFileSystem() throws IOException {
        Map<String, Object> env = new HashMap<>();
        env.put("uid", "1000");
        env.put("gid", 0x3e8);
        env.put("groups", "10, 20");
        env.put("umask", "077");
        env.put("size", "0x100000");
        env.put("nr_inodes", 100L);
        env.put("readOnly", "FALSE");
        env.put("proc", Boolean.FALSE);
        try (FileSystem fs = FileSystems.newFileSystem(URI.create("seqvfs://" + NAME), env)) {
            Files.createDirectory(fs.getPath("/d"));
            assertEquals(
                    "rwx------",
                    java.nio.file.attribute.PosixFilePermissions.toString(
                            Files.getPosixFilePermissions(fs.getPath("/d"))),
                    "umask 077 was read as octal");
        }
    }
}
